// Imported before a command line's modules, except serve's (src/main.ts): a command line parses each
// of its schemas about once, and zod's fast path for objects (code compiled with new Function on an
// object schema's first parse) costs more CPU than it saves there. serve, which parses webhooks for
// hours, keeps it. Set before any schema is made: zod reads the setting when it makes one.
import { z } from 'zod';

z.config({ jitless: true });
