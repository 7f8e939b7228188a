// The forward proxy of one WebKit page (webkit.mjs): the page's WebDriver session sends every
// request through it (the `proxy` capability), which gives WebKit pages what playwright's have
// and WebDriver classic lacks: `route` (fulfil, continue or abort a request, possibly after a
// wait), `response` events, and scripts that run before the page's own (`addInitScript`, put
// at the top of every HTML document the proxy passes on).
import http from "node:http";

const readAll = (stream) =>
  new Promise((resolve, reject) => {
    const parts = [];
    stream.on("data", (d) => parts.push(d));
    stream.on("end", () => resolve(Buffer.concat(parts)));
    stream.on("error", reject);
  });

/** Playwright's URL glob as a regex: `**` any text, `*` any text but `/`, the rest literal. */
export function globToRegExp(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (glob[i] === "*") re += "[^/]*";
    else re += glob[i].replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** `scripts` at the top of an HTML document: after its doctype, so the page keeps its mode. */
function withScripts(html, scripts) {
  const text = html.toString("utf8");
  const tag = `<script>${scripts.join(";\n")}</script>`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(text);
  const at = doctype ? doctype[0].length : 0;
  return Buffer.from(text.slice(0, at) + tag + text.slice(at));
}

/** A response as playwright's `Response` shows it to a listener. */
const responseOf = (url, status, headers, body) => ({
  url: () => url,
  status: () => status,
  ok: () => status >= 200 && status < 300,
  headers: () => headers,
  body: async () => body,
  text: async () => body.toString("utf8"),
});

/**
 * Starts a proxy on 127.0.0.1: `{ address, route, onResponse, addInitScript, close }`.
 * `address` is `host:port` for the session's proxy capability.
 */
export async function startProxy() {
  const routes = []; // { pattern, handler }, the newest consulted first (as playwright does)
  const listeners = [];
  const scripts = [];

  const forward = (req, url, body) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      // Bodies uncompressed, so that a script can go into a document (the viewer's server
      // compresses what a browser accepts compressed).
      const headers = { ...req.headers };
      delete headers["accept-encoding"];
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers },
        (r) => readAll(r).then((b) => resolve({ status: r.statusCode, headers: r.headers, body: b }), reject),
      );
      upstream.on("error", reject);
      upstream.end(body);
    });

  const server = http.createServer(async (req, res) => {
    const url = req.url; // a proxy is asked with the absolute URL
    let reply;
    try {
      const body = await readAll(req);
      const route = routes.findLast((r) => r.pattern.test(url));
      reply = route
        ? await new Promise((resolve, reject) => {
            const handle = {
              request: () => ({ url: () => url, method: () => req.method }),
              fulfill: async ({ status = 200, contentType, headers = {}, body: b = "" }) =>
                resolve({ status, headers: { ...headers, ...(contentType ? { "content-type": contentType } : {}) }, body: Buffer.from(b) }),
              continue: async () => forward(req, url, body).then(resolve, reject),
              abort: async () => resolve(null),
            };
            Promise.resolve(route.handler(handle)).catch(reject);
          })
        : await forward(req, url, body);
    } catch (e) {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`parsebox test proxy: ${e?.message ?? e}`);
      return;
    }
    if (reply === null) {
      req.socket.destroy();
      return;
    }
    let out = reply.body;
    if (scripts.length && /text\/html/i.test(String(reply.headers["content-type"] ?? ""))) out = withScripts(out, scripts);
    const headers = { ...reply.headers, "content-length": String(out.length) };
    delete headers["transfer-encoding"];
    res.writeHead(reply.status, headers);
    res.end(out);
    for (const l of listeners) l(responseOf(url, reply.status, reply.headers, out));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${server.address().port}`,
    route: (glob, handler) => routes.push({ pattern: typeof glob === "string" ? globToRegExp(glob) : glob, handler }),
    onResponse: (listener) => listeners.push(listener),
    addInitScript: (fn, arg) => scripts.push(typeof fn === "function" ? `(${fn})(${JSON.stringify(arg ?? null)})` : String(fn)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
