// Speech as the rest of ringhook sees it: the engines behind one Tts (tts.ts), the planner that chooses
// a voice in time and the speech made ahead of calls, the resident flite, the media folder, the
// samples the dashboard and `ringhook say` play, and the Japanese dictionary (kuromoji is loaded at
// its first use, not with this entry).
export { checkDictionaryFolder } from './dictionary-folder.js';
export { buildResidentFlite } from './flite-resident.js';
export { type JapaneseDictionary, japaneseDictionary } from './japanese-reader.js';
export { prepareMediaDir } from './media-dir.js';
export { SpeechAhead } from './speech-ahead.js';
export { SpeechPlanner } from './speech-planner.js';
export { type SpokenAudio, speechSampler, spokenAudio } from './speech-sample.js';
export { createTts } from './tts.js';
export { type Tts, TtsError } from './tts-api.js';
