// The speech engines ringhook runs itself (the operator's own command is apart: RINGHOOK_TTS_COMMAND).
export type TtsEngine = 'flite' | 'espeak-ng' | 'festival';
