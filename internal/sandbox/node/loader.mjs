// plaios sandbox module loader hooks, for node versions without module.registerHooks (they
// run on a loader thread, registered by hooks.cjs). They serve the OpenClaw entry helpers
// (openclaw/plugin-sdk/plugin-entry and …/tool-plugin) from small faithful copies in
// ./openclaw, so that a plugin loads without the 650 MB host and its registrations reach the
// recording API the harness passes to register(api).

let shims = {};

export async function initialize(data) {
  shims = (data && data.shims) || {};
}

export async function resolve(specifier, context, nextResolve) {
  if (Object.prototype.hasOwnProperty.call(shims, specifier)) {
    return { url: shims[specifier], format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
