// Weather: one class per interface of agent-os.package.yaml. The host finds each by its
// className through this entry and constructs it with `new Class(options)`.
export { WeatherCapability } from "./action.js";
