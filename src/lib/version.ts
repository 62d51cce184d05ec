// ringhook's version, as `ringhook --version` prints it and serve records in its data dir.
export const VERSION = '0.1.0';
