export { Database, markSessionChanged, type Migration, Migrations, sessionChangeCounter, writeTransaction } from './Database.js';
export { dbModule } from './dbModule.js';
export {
  DatabaseLocation,
  databaseLocationOf,
  type PostgresMigration,
  PostgresMigrations,
  type SqlClient,
  SqlDatabase,
} from './SqlDatabase.js';
