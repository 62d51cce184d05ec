// The one pause: injected where tests need to see it (the SMS retries), used as is elsewhere.
export type Sleep = (ms: number) => Promise<void>;

export const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
