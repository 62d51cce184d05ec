// Words, for sentences written all in capitals ("OIL BREAKS OUT"): there a capital token that is
// an English word (or one with an -s, -ed, -ing, -er, -ly ending) is said as a word, and only the
// others, which look like tickers, are spelled. Short everyday and market words; tickers that are
// also words and are spelled by traders (SPY, DIA) are left out on purpose.
const WORDS = new Set(
  `about after again against ago ahead all almost alone along also am among amount an and any anyone are area around as ask
  at away back bad bank base basis be bear been before begin being below best better big bid bids bit block blow board body
  bond bonds book both bottom box break broken bring buyer by came can cap cash catch cause change cheap chop clean clear
  climb coin come cool core cost could count cover crash credit crude cut cycle dead deal debt deep did dip dips do does done
  double drive due dull during each early earn ease east easy edge either else end energy enough even ever every exact
  extra fade fail fair fall false far fear feel few fill final find fine fire firm first fix flag flip floor flow fly
  follow force form found free fresh fund funds gain gains gas get give given going good got great green grow growth had
  hard have he head heavy help her here hike him his hit hot hour house how huge idea into its itself job jump just keep
  key kind knew know large late later lead least leave left less let like likely line lines liquid list little live lock
  long look lose lost lot low lower made main major make many mark may me mean meet mid might mind minor miss mixed money
  month more most move much must my near need net never news nice night none nor off offer often oil old once one only
  other our outside own pace pair part pass past pay peak people per pick place plan play plus point pool post power
  press pretty prior pull push quick quiet rate rates rather reach read ready real red relief rest return rise risky road
  room rose rule run safe said same save saw say see seen seek sell seller send set setup shake share sharp she shift
  should show side sign silver since sink slide slip small so soft some soon sound speed spot start state stay steady
  step still stock stocks storm street such supply sure swing tail talk tank tax team tell than that their them there
  these they thin thing think this those three tight time times tiny too top touch track trade trader trap try turn
  twice two under until upon upper use used value very wait wall want war watch water wave way we well went were west
  what when where which while white who whole why wide will window wing wins wipe wire wish within without word work
  world would wrong year yet yield you your zero fed rate cut hike jobs war peace deal talks lower higher record
  breaks breaking out fired firing`.split(/\s+/),
);

const ENDINGS: ReadonlyArray<[string, string]> = [
  ['IES', 'Y'],
  ['ING', ''],
  ['ING', 'E'],
  ['ED', ''],
  ['ED', 'E'],
  ['ES', ''],
  ['S', ''],
  ['ER', ''],
  ['ERS', ''],
  ['LY', ''],
  ['D', ''],
];

/** Whether an all-caps token is an English word (the list, or one of its words with a common ending). */
export function isKnownWord(token: string, capsWords: Readonly<Record<string, string>>): boolean {
  const known = (t: string) => WORDS.has(t.toLowerCase()) || capsWords[t] !== undefined;
  if (known(token)) return true;
  for (const [ending, base] of ENDINGS) {
    if (!token.endsWith(ending) || token.length - ending.length < 2) continue;
    const stem = token.slice(0, -ending.length);
    if (known(stem + base)) return true;
    // STOPPED, DIPPING: a doubled consonant before the ending.
    if (/([B-DF-HJ-NP-TV-Z])\1$/.test(stem) && known(stem.slice(0, -1))) return true;
  }
  return false;
}
