// Telegram Clone: one class per interface of agent-os.package.yaml. The host finds each by its
// className through this entry and constructs it with `new Class(options)`.
export { TelegramCloneInput } from "./input.js";
export { TelegramCloneOutput } from "./output.js";
