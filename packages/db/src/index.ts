export { Database, type Migration, Migrations, openDatabase, writeTransaction } from './Database.js';
export { dbModule } from './dbModule.js';
