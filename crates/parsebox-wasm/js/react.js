// parsebox/react: a live run's transcript as React state (useSyncExternalStore over one
// TranscriptBuilder). React is an optional peer dependency: only this entry imports it.
import { useEffect, useMemo, useSyncExternalStore } from "react";
import { RunFollower } from "./follow.js";
import { paperclipRegistry } from "./paperclip.js";
import { callEach } from "./errors.js";
import { checkOptions, checkString } from "./options.js";

/**
 * The transcript of `chunks` (the run's chunk list so far, as Paperclip's run view holds it) for
 * `adapterType`, as Paperclip's `buildTranscript` gives it. A render whose list begins with the
 * same chunk objects parses only the new ones; the component renders again when a Worker's
 * answers arrive (batched per frame) or the type's parser becomes ready.
 */
export function useTranscript(chunks, adapterType, options) {
  checkString(adapterType, "adapterType");
  const o = checkOptions("useTranscript", options);
  const registry = o.registry ?? paperclipRegistry();
  const redact = o.censorUsernameInLogs === true;
  const store = useMemo(() => new TranscriptStore(registry, adapterType), [registry, adapterType]);
  useEffect(() => () => store.dispose(), [store]);
  store.take(chunks, redact); // a switch of redaction re-folds the run, it does not re-parse it
  return useSyncExternalStore(store.subscribe, store.snapshot, store.snapshot);
}

/** The hook's store: a RunFollower made (again) on demand, and the components listening. */
class TranscriptStore {
  #registry;
  #type;
  #redact = false;
  #run = null;
  #chunks = [];
  #listeners = new Set();
  #unwatch = null;

  constructor(registry, type) {
    this.#registry = registry;
    this.#type = type;
  }

  /** Follows `chunks` (a list that does not continue the last one starts the run anew: the core decides). */
  take(chunks, redact = this.#redact) {
    this.#chunks = chunks;
    this.#redact = redact;
    if (!this.#run) {
      this.#run = new RunFollower(this.#registry, this.#type, this.#redact);
      this.#run.onUpdate(this.#emit);
    }
    this.#unwatch ??= this.#registry.onChange((type, _status, lines) => {
      // The parser changed: re-parse now, so the next snapshot differs and React renders.
      if (type === this.#type && lines === null && this.#run?.follow(this.#chunks, this.#redact)) this.#emit();
    });
    this.#run.follow(chunks, redact);
  }

  #emit = () => {
    callEach(this.#listeners);
  };

  subscribe = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  snapshot = () => {
    if (!this.#run) this.take(this.#chunks);
    return this.#run.transcript();
  };

  /** Frees the builder (a later render makes a new one: React may mount the store again). */
  dispose() {
    this.#unwatch?.();
    this.#unwatch = null;
    this.#run?.dispose();
    this.#run = null;
  }
}
