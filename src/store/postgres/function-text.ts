/**
 * A function's next version: its previous version's text renamed (`CREATE FUNCTION <from>(` becomes
 * `<to>(`) and changed by replacements, each of which must match exactly once. The previous text is
 * never edited, so the new one never changes either; a replacement that stops matching fails at load,
 * not in a database.
 */
export function nextVersion(
  text: string,
  names: { from: string; to: string },
  changes: ReadonlyArray<readonly [string, string]>,
): string {
  let result = text;
  for (const [from, to] of [[`CREATE FUNCTION ${names.from}(`, `CREATE FUNCTION ${names.to}(`], ...changes]) {
    if (result.split(from!).length !== 2) throw new Error(`${names.to}: '${from}' is not once in ${names.from}'s text`);
    result = result.replace(from!, to!);
  }
  return result;
}

/** A replacement that adds columns at the end of a parenthesised list (an INSERT's, or its VALUES'). */
export const addedAtEnd = (list: string, added: string): [string, string] => [`${list})`, `${list}, ${added})`];
