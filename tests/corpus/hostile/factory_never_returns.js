// Hostile parser: createStdoutParser() never returns.
export function createStdoutParser() { for (;;) {} }
