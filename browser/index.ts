/** The in-browser library: `import { VectorGraphDB } from './database.js'` then `await VectorGraphDB.init()`. */
export { VectorGraphDB, type CollectionConfigInput, type PointInput, type SearchOptions } from './database.js';
export { DbError } from '../storage/errors.js';
