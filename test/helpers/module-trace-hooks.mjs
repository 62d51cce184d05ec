// The loader hook of module-trace.mjs: says each module's URL as it is loaded.
export async function load(url, context, nextLoad) {
  process.stderr.write(`module-trace: ${url}\n`);
  return nextLoad(url, context);
}
