"use strict";
// Imitates an OpenCode `run --format json` parser as emitted by `tsc --module commonjs
// --target ES2020`: `__esModule` marker, `exports.parseStdoutLine = void 0;` hoisting, a compiled
// string enum, and a stateless `export const parseStdoutLine` arrow function.
Object.defineProperty(exports, "__esModule", { value: true });
exports.parseStdoutLine = exports.OPENCODE_EVENT_TYPES = void 0;
var EventType;
(function (EventType) {
    EventType["StepStart"] = "step_start";
    EventType["StepFinish"] = "step_finish";
    EventType["Text"] = "text";
    EventType["Reasoning"] = "reasoning";
    EventType["ToolUse"] = "tool_use";
    EventType["Error"] = "error";
})(EventType || (EventType = {}));
var ToolStatus;
(function (ToolStatus) {
    ToolStatus[ToolStatus["pending"] = 0] = "pending";
    ToolStatus[ToolStatus["running"] = 1] = "running";
    ToolStatus[ToolStatus["completed"] = 2] = "completed";
    ToolStatus[ToolStatus["error"] = 3] = "error";
})(ToolStatus || (ToolStatus = {}));
exports.OPENCODE_EVENT_TYPES = Object.values(EventType);
const MAX_OUTPUT_CHARS = 8000;
function isRecord(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
function readString(value) {
    return typeof value === "string" ? value : "";
}
function readNumber(value) {
    return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
function truncate(text) {
    if (text.length <= MAX_OUTPUT_CHARS)
        return text;
    return `${text.slice(0, MAX_OUTPUT_CHARS)}\n… ${text.length - MAX_OUTPUT_CHARS} more characters`;
}
function toolEntries(part, ts) {
    var _a, _b, _c;
    const state = isRecord(part.state) ? part.state : {};
    const callId = readString(part.callID) || readString(part.id);
    const name = readString(part.tool) || "tool";
    const status = ToolStatus[readString(state.status)];
    const entries = [
        { kind: "tool_call", ts, name, input: (_a = state.input) !== null && _a !== void 0 ? _a : {}, toolUseId: callId },
    ];
    if (status === ToolStatus.completed) {
        const exit = (_b = state.metadata) === null || _b === void 0 ? void 0 : _b.exit;
        entries.push({
            kind: "tool_result",
            ts,
            toolUseId: callId,
            toolName: name,
            content: truncate(readString(state.output)),
            isError: typeof exit === "number" && exit !== 0,
        });
    }
    else if (status === ToolStatus.error) {
        entries.push({
            kind: "tool_result",
            ts,
            toolUseId: callId,
            toolName: name,
            content: readString(state.error) || "tool failed",
            isError: true,
        });
    }
    else if (status === undefined && ((_c = state.status) !== null && _c !== void 0 ? _c : "") !== "") {
        entries.push({ kind: "system", ts, text: `unknown tool status: ${String(state.status)}` });
    }
    return entries;
}
const parseStdoutLine = (line, ts) => {
    var _a, _b, _c, _d;
    let event;
    try {
        event = JSON.parse(line);
    }
    catch (_e) {
        return [{ kind: "stdout", ts, text: line }];
    }
    if (!isRecord(event))
        return [{ kind: "stdout", ts, text: line }];
    const part = isRecord(event.part) ? event.part : {};
    switch (event.type) {
        case EventType.StepStart:
            return [{ kind: "system", ts, text: `step started (${readString(event.sessionID)})` }];
        case EventType.Text: {
            const text = readString(part.text).trim();
            return text ? [{ kind: "assistant", ts, text }] : [];
        }
        case EventType.Reasoning: {
            const text = readString(part.text).trim();
            return text ? [{ kind: "thinking", ts, text }] : [];
        }
        case EventType.ToolUse:
            return toolEntries(part, ts);
        case EventType.StepFinish: {
            const tokens = isRecord(part.tokens) ? part.tokens : {};
            const cache = isRecord(tokens.cache) ? tokens.cache : {};
            const reason = readString(part.reason) || "stop";
            return [{
                    kind: "result",
                    ts,
                    text: reason === "tool-calls" ? "" : `finished: ${reason}`,
                    inputTokens: readNumber(tokens.input),
                    outputTokens: readNumber(tokens.output) + readNumber(tokens.reasoning),
                    cachedTokens: readNumber(cache.read),
                    costUsd: readNumber(part.cost),
                    subtype: reason === "tool-calls" ? "step" : "success",
                    isError: false,
                    errors: [],
                }];
        }
        case EventType.Error: {
            const err = isRecord(event.error) ? event.error : {};
            const message = (_c = (_b = (_a = err.data) === null || _a === void 0 ? void 0 : _a.message) !== null && _b !== void 0 ? _b : err.message) !== null && _c !== void 0 ? _c : "unknown error";
            return [{ kind: "stderr", ts, text: `${(_d = err.name) !== null && _d !== void 0 ? _d : "Error"}: ${message}` }];
        }
        default:
            return [{ kind: "stdout", ts, text: line }];
    }
};
exports.parseStdoutLine = parseStdoutLine;
//# sourceMappingURL=ui-parser.js.map
