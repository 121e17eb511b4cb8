export * from "./domain.js";
