// Japanese, Korean and Chinese (Mandarin): their prompts and the normalizer's words, written by
// hand. Numbers are said as a native speaker says them, checked on espeak-ng's phonemes:
// Japanese in kana and Chinese in characters (espeak-ng's own reading of 64250 is wrong in both),
// decimals one digit at a time after the point word, magnitudes written out whole (7.5M is
// 750万, counted in ten thousands).
import { decimalWord, digitsLanguage } from '../number-words.js';
import {
  chineseCardinal,
  chineseNumbers,
  japaneseCardinal,
  japaneseNumbers,
  koreanNativeCount,
} from '../native-numbers.js';
import type { TimeUnit } from '../speech-text/words.js';
import { continuous, lang, ordinals, same, units } from './helpers.js';

const JA_MONTHS =
  'いちがつ にがつ さんがつ しがつ ごがつ ろくがつ しちがつ はちがつ くがつ じゅうがつ じゅういちがつ じゅうにがつ'.split(
    ' ',
  );
const JA_DAYS: Record<number, string> = {
  1: 'ついたち',
  2: 'ふつか',
  3: 'みっか',
  4: 'よっか',
  5: 'いつか',
  6: 'むいか',
  7: 'なのか',
  8: 'ようか',
  9: 'ここのか',
  10: 'とおか',
  14: 'じゅうよっか',
  20: 'はつか',
  24: 'にじゅうよっか',
};
/** Where a count before a unit is not the plain number: 4 じ is よじ, 7 にち しちにち, 9 く. */
const jaCount = (n: number, four: string) => {
  const tens = n >= 10 ? japaneseCardinal(n - (n % 10)) : '';
  const one = n % 10;
  return (
    tens +
    (one === 0 ? '' : (({ 4: four, 7: 'しち', 9: 'く' } as Record<number, string>)[one] ?? japaneseCardinal(one)))
  );
};
const jaDay = (d: number) => JA_DAYS[d] ?? `${jaCount(d, 'よん')}にち`;
const JA_MINUTE_ENDINGS: Record<number, string> = {
  1: 'いっぷん',
  3: 'さんぷん',
  4: 'よんぷん',
  6: 'ろっぷん',
  8: 'はっぷん',
};
function jaMinutes(m: number): string {
  const tens = m >= 10 ? japaneseCardinal(m - (m % 10)) : '';
  const one = m % 10;
  if (one === 0) return `${tens.slice(0, -'じゅう'.length)}じゅっぷん`;
  return tens + (JA_MINUTE_ENDINGS[one] ?? `${japaneseCardinal(one)}ふん`);
}
/** A count and its unit as said together: 4時間 よじかん, 1分 いっぷん, 6ヶ月 ろっかげつ. */
const JA_SMALL_TSU: Record<number, string> = { 1: 'いっ', 6: 'ろっ', 8: 'はっ', 10: 'じゅっ' };
function jaTimeframe(n: number, unit: TimeUnit): string | undefined {
  if (n >= 10_000) return undefined;
  const plain = japaneseCardinal(n);
  switch (unit) {
    case 'minute':
      return n % 100 === 0 ? `${plain}ふん` : jaMinutes(n);
    case 'hour':
      return `${jaCount(n, 'よ')}じかん`;
    case 'second':
      return `${plain}びょう`;
    case 'day':
      return n === 1 ? 'いちにち' : jaDay(n);
    case 'week':
      return `${JA_SMALL_TSU[n] ?? plain}しゅうかん`;
    case 'month':
      return `${JA_SMALL_TSU[n] ?? plain}かげつ`;
  }
}
const jaTime = (h: number, m: number) => (m === 0 ? `${jaCount(h, 'よ')}じ` : `${jaCount(h, 'よ')}じ ${jaMinutes(m)}`);

// Kana only: espeak-ng reads kanji as "Chinese letter".
export const ja = lang(
  'ja',
  'Japanese',
  '日本語',
  'ja',
  japaneseNumbers({ minus: 'マイナス', plus: 'プラス', percent: 'パーセント', times: 'ばい' }),
  {
    intro: 'リングフック からの アラート です。',
    prompt: 'かくにん する には 1 を、 もう いちど きく には 2 を おして ください。',
    keys: 'かくにん は 1、 もう いちど きく には 2 か ほし、 この あんない は 0 を おして ください。',
    confirmed: 'かくにん しました。 しつれい します。',
    testCall: 'これは リングフック からの テスト でんわ です。 アラートは このように きこえます。',
    alertCount: (n) => `アラートが ${n} けん あります。`,
    olderHeld: (n) => `ほかに ふるい アラートが ${n} けん あります。りれきを ごらんください。`,
    ordinal: ordinals(
      [
        'いっけんめ',
        'にけんめ',
        'さんけんめ',
        'よんけんめ',
        'ごけんめ',
        'ろっけんめ',
        'ななけんめ',
        'はっけんめ',
        'きゅうけんめ',
        'じゅっけんめ',
      ],
      (n) => `${n} けんめ`,
    ),
  },
  {
    futuresMonths: continuous('ちかぎり', 'じげつ'),
    perpetual: 'むきげん',
    futures: 'さきもの',
    shareClass: (ticker, letter) => `${ticker} クラス ${letter}`,
    on: '、',
    crosses: 'クロス',
    utc: 'U T C',
    symbols: {
      atOrAbove: 'いじょう',
      atOrBelow: 'いか',
      to: 'から',
      above: 'うわまわり',
      below: 'したまわり',
      at: 'で',
      and: 'と',
      up: 'あげ',
      down: 'さげ',
      about: 'やく',
    },
    numberSign: 'ナンバー',
    riskReward: 'リスク リワード',
    ratioTo: 'たい',
    date: (month, day) => `${JA_MONTHS[month - 1]} ${jaDay(day)}`,
    units: units({ second: 'びょう', minute: 'ふん', hour: 'じかん', day: 'にち', week: 'しゅう', month: 'かげつ' }),
    single: { day: 'ひあし', week: 'しゅうあし', month: 'つきあし' },
    // 1時間足, 5分足, 日足: the count read as Japanese says it with its unit (よじかん, ごふん), then あし.
    ownUnits: {
      秒: 'second',
      分: 'minute',
      時間: 'hour',
      週間: 'week',
      ヶ月: 'month',
      か月: 'month',
      カ月: 'month',
      日足: 'day',
      週足: 'week',
      月足: 'month',
    },
    chartWord: { written: '足', said: 'あし' },
    timeframe: jaTimeframe,
    joinsWords: true,
    readsKanji: true,
    quantities: { basisPoint: same('ベーシスポイント'), pip: same('ピップス'), point: same('ポイント') },
    year: same('ねん'),
    currencies: { $: same('ドル'), '€': same('ユーロ'), '£': same('ポンド'), '¥': same('えん') },
    unreadable: { pattern: /[\p{Script=Han}々〆]+/gu, instead: 'かんじ の メッセージ' },
    time24: jaTime,
    time12: jaTime,
  },
);

export const ko = lang(
  'ko',
  'Korean',
  '한국어',
  'ko',
  digitsLanguage({ minus: '마이너스', plus: '플러스', percent: '퍼센트', times: '배', decimal: decimalWord('점') }),
  {
    intro: '링훅 알림입니다.',
    prompt: '확인하려면 1번, 다시 들으려면 2번을 누르세요.',
    keys: '확인은 1번, 다시 들으려면 2번이나 별표, 이 안내를 들으려면 0번을 누르세요.',
    confirmed: '확인되었습니다. 안녕히 계세요.',
    testCall: '링훅의 테스트 전화입니다. 알림은 이렇게 들립니다.',
    alertCount: (n) => `알림이 ${n}개 있습니다.`,
    olderHeld: (n) => `이전 알림이 ${n}개 더 있습니다. 기록을 확인하세요.`,
    ordinal: ordinals(
      ['첫째', '둘째', '셋째', '넷째', '다섯째', '여섯째', '일곱째', '여덟째', '아홉째', '열째'],
      (n) => `알림 ${n}`,
    ),
  },
  {
    futuresMonths: continuous('근월물', '차월물'),
    perpetual: '무기한',
    futures: '선물',
    shareClass: (ticker, letter) => `${ticker} 클래스 ${letter}`,
    on: ',',
    crosses: '교차',
    utc: 'U T C',
    symbols: {
      atOrAbove: '이상',
      atOrBelow: '이하',
      to: '에서',
      above: '초과',
      below: '미만',
      at: '에',
      and: '그리고',
      up: '상승',
      down: '하락',
      about: '약',
    },
    numberSign: '넘버',
    riskReward: '손익비',
    ratioTo: '대',
    date: (month, day) => `${month}월 ${day}일`,
    units: units({ second: '초', minute: '분', hour: '시간', day: '일', week: '주', month: '개월' }),
    single: { day: '일봉', week: '주봉', month: '월봉' },
    ownUnits: { 초: 'second', 분: 'minute', 시간: 'hour', 일봉: 'day', 주봉: 'week', 월봉: 'month', 개월: 'month' },
    chartWord: { written: '봉', said: '봉' },
    joinsWords: true,
    quantities: { basisPoint: same('베이시스 포인트'), pip: same('핍'), point: same('포인트') },
    year: same('년'),
    currencies: { $: same('달러'), '€': same('유로'), '£': same('파운드'), '¥': same('엔') },
    timeframe: (n, unit) => (unit === 'hour' ? withNative(n, '시간') : undefined),
    time24: koTime,
    time12: koTime,
  },
);

/** Hours are counted in Korean's native numbers (네 시간, 열네 시 삼십 분), minutes in the Sino-Korean ones espeak-ng reads. */
function withNative(n: number, counter: string): string | undefined {
  const native = koreanNativeCount(n);
  return native === undefined ? undefined : `${native} ${counter}`;
}
function koTime(h: number, m: number): string {
  const hour = h === 0 ? '영 시' : (withNative(h, '시') ?? `${h}시`);
  return m === 0 ? hour : `${hour} ${m}분`;
}

/** 14:05 "十四点零五分", 9:00 "九点". */
const zhTime = (h: number, m: number) =>
  m === 0 ? `${chineseCardinal(h)}点` : `${chineseCardinal(h)}点${m < 10 ? '零' : ''}${chineseCardinal(m)}分`;

// Mandarin, with espeak-ng's pinyin voice: its plain cmn voice reads tone numbers in English.
export const zh = lang(
  'zh',
  'Chinese (Mandarin)',
  '中文',
  'cmn-latn-pinyin',
  chineseNumbers({ minus: '负', plus: '正', percent: '百分之', times: '倍' }),
  {
    intro: '这是您的交易提醒。',
    prompt: '确认请按1，重听请按2。',
    keys: '确认请按1，重听请按2或星号，再听这些选项请按0。',
    confirmed: '已确认。再见。',
    testCall: '这是一个测试电话。您的提醒听起来就是这样。',
    alertCount: (n) => `您有${n}条提醒。`,
    olderHeld: (n) => `另有${n}条较早的提醒，请查看历史记录。`,
    ordinal: ordinals(
      ['第一条', '第二条', '第三条', '第四条', '第五条', '第六条', '第七条', '第八条', '第九条', '第十条'],
      (n) => `第${n}条`,
    ),
  },
  {
    futuresMonths: continuous('近月', '次月'),
    perpetual: '永续',
    futures: '期货',
    shareClass: (ticker, letter) => `${ticker} ${letter}类股`,
    on: '，',
    crosses: '穿过',
    utc: 'U T C',
    symbols: {
      atOrAbove: '不低于',
      atOrBelow: '不高于',
      to: '到',
      above: '高于',
      below: '低于',
      at: '在',
      and: '和',
      up: '上涨',
      down: '下跌',
      about: '约',
    },
    numberSign: '第',
    riskReward: '盈亏比',
    ratioTo: '比',
    date: (month, day) => `${chineseCardinal(month)}月${chineseCardinal(day)}日`,
    units: units({ second: '秒', minute: '分钟', hour: '小时', day: '天', week: '周', month: '个月' }),
    single: { day: '日线', week: '周线', month: '月线' },
    ownUnits: {
      秒: 'second',
      分钟: 'minute',
      分: 'minute',
      小时: 'hour',
      日线: 'day',
      周线: 'week',
      月线: 'month',
      个月: 'month',
    },
    chartWord: { written: '线', said: '线' },
    joinsWords: true,
    quantities: { basisPoint: same('个基点'), pip: same('点'), point: same('点') },
    year: same('年'),
    // ¥ is the yuan's sign in China (¥1,850 茅台); the yen is written JPY or 日元 there.
    currencies: { $: same('美元'), '€': same('欧元'), '£': same('英镑'), '¥': same('元') },
    percentBefore: '百分之',
    time24: zhTime,
    time12: zhTime,
  },
);
