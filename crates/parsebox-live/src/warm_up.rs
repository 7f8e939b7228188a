//! Which JavaScript engines make a page's first parsers wait for the engine module's warm-up.
//!
//! JavaScriptCore (WebKit: Safari, every iOS browser, WebKitGTK; and Bun) leaves a wasm
//! function in its interpreter for every later instance of the module when a Worker running
//! that module is ended while the function is being compiled for a faster tier: a page whose
//! first Workers were ended at a deadline parsed every later line 4-25 times slower (session
//! 32). There, parsers start once the warm-up Worker has compiled the code. V8 and
//! SpiderMonkey have no such fault, so their pages do not pay the wait: their parsers start at
//! once, while the warm-up goes on beside them (Firefox's first parser ready ~125 ms sooner;
//! Chromium's no sooner, its first load taking what the warm-up took: BENCHMARKS.md).
//! An engine the user agent does not name waits, as the safe side.

/// Whether parsers must wait for the warm-up in the engine `user_agent` names
/// (`navigator.userAgent`).
pub fn parsers_wait_for_warm_up(user_agent: &str) -> bool {
    !(names_v8(user_agent) || names_spidermonkey(user_agent))
}

/// Chromium-based browsers (`Chrome/`, `HeadlessChrome/`, `Chromium/`, `Edg/`; Android's
/// WebView says `Chrome/` too), Deno and Node. iOS browsers name Chrome and Edge as `CriOS/` and
/// `EdgiOS/`: they are WebKit, and do not match.
fn names_v8(ua: &str) -> bool {
    ["Chrome/", "Chromium/", "Edg/", "Deno/", "Node.js/"]
        .iter()
        .any(|token| ua.contains(token))
}

/// Firefox on every platform but iOS (`FxiOS/` is WebKit): Gecko without WebKit's token.
fn names_spidermonkey(ua: &str) -> bool {
    ua.contains("Firefox/") && ua.contains("Gecko/") && !ua.contains("AppleWebKit/")
}

#[cfg(test)]
mod tests {
    use super::parsers_wait_for_warm_up;

    #[test]
    fn only_javascriptcore_and_engines_not_named_wait() {
        let table = [
            // The three browsers of the test suite.
            ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36", false),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0", false),
            ("Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15", true),
            // Desktop and mobile browsers.
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", false),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", false),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", true),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0", false),
            ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", false),
            ("Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0", false),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", true),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", true),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15", true),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/131.0 Mobile/15E148 Safari/605.1.15", true),
            // Server runtimes with Workers.
            ("Deno/2.1.4", false),
            ("Node.js/20", false),
            ("Bun/1.1.38", true),
            // Nothing to go by.
            ("", true),
        ];
        for (ua, waits) in table {
            assert_eq!(parsers_wait_for_warm_up(ua), waits, "{ua}");
        }
    }
}
