// The voices flite carries, each a library of its own (libflite_cmu_us_<voice>.so.1): the ones
// RINGHOOK_VOICE and RINGHOOK_BURST_VOICE may name, and the resident flite can load.
export const FLITE_VOICES = ['kal', 'kal16', 'awb', 'rms', 'slt'] as const;
