// plaios sandbox module loader hooks (registered by hooks.mjs, run on the loader thread).
//
// - The OpenClaw entry helpers (openclaw/plugin-sdk/plugin-entry and …/tool-plugin) are served
//   by small faithful copies in ./openclaw, so that a plugin loads without the 650 MB host and
//   its registrations reach the recording API the harness passes to register(api).
// - A host runtime package (@framers/agentos, openclaw, the Pi core packages, @plaios/*) is
//   never installed by guard: the host provides it. When a package imports one at run time,
//   it is looked up in the workspace the package came from (where its devDependencies are
//   installed), as the host would provide it; when it is not there either, the error says so.

let shims = {};
let hostPackages = new Set();
let hostFallback = '';

const builtinShims = {
  'openclaw/plugin-sdk/plugin-entry': new URL('./openclaw/plugin-entry.mjs', import.meta.url).href,
  'openclaw/plugin-sdk/tool-plugin': new URL('./openclaw/tool-plugin.mjs', import.meta.url).href,
};

export async function initialize(data) {
  shims = { ...builtinShims, ...(data && data.shims) };
  hostPackages = new Set((data && data.hostPackages) || []);
  hostFallback = (data && data.hostFallback) || '';
}

function packageName(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.includes(':')) return '';
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

export async function resolve(specifier, context, nextResolve) {
  if (Object.prototype.hasOwnProperty.call(shims, specifier)) {
    return { url: shims[specifier], format: 'module', shortCircuit: true };
  }
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    const pkg = packageName(specifier);
    if (!pkg || !hostPackages.has(pkg) || !err || err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    if (hostFallback) {
      try {
        return await nextResolve(specifier, { ...context, parentURL: hostFallback });
      } catch {
        // reported below
      }
    }
    const e = new Error(`Cannot find the host package '${pkg}' (imported as '${specifier}'): guard does not install a runtime's host package, so install it in the workspace (a devDependency of the package) for guard to load it from there`);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
}
