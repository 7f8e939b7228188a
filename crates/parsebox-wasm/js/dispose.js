// `using` support: the classes' `[Symbol.dispose]()` where the engine has the symbol. WebKitGTK
// 2.50 (Safari's engine) has no `Symbol.dispose`, and a class body that declared
// `[Symbol.dispose]()` there got a method named "undefined" instead.

/** Gives each class a `[Symbol.dispose]()` that calls its `dispose()`, where the symbol exists. */
export function disposable(...classes) {
  if (typeof Symbol.dispose !== "symbol") return;
  for (const c of classes) {
    Object.defineProperty(c.prototype, Symbol.dispose, {
      value: function dispose() {
        this.dispose();
      },
      writable: true,
      configurable: true,
    });
  }
}
