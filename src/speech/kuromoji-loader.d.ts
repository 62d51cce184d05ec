// kuromoji's file loader (no type declarations of its own): reading the dictionary from the single
// executable's assets replaces its loadArrayBuffer (speech/japanese-reader.ts).
declare module 'kuromoji/src/loader/NodeDictionaryLoader.js' {
  type Loaded = (error: Error | null, buffer?: ArrayBuffer) => void;
  const NodeDictionaryLoader: { prototype: { loadArrayBuffer(file: string, callback: Loaded): void } };
  export default NodeDictionaryLoader;
}
