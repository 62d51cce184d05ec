// Decision keys (#56): the columns are PostgreSQL's 020 too (store/sql/decision-keys.ts). Its text
// is fixed once shipped, as every migration's.
import { decisionKeysColumns } from '../../sql/decision-keys.js';

export default decisionKeysColumns('INTEGER');
