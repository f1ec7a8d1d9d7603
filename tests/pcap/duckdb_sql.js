// SPDX-License-Identifier: GPL-2.0-or-later
// Runs every statement of an SQL file in DuckDB (the npm package
// @duckdb/node-api, installed under MODULES/node_modules) and prints one JSON
// document: [{"sql": statement, "columns": [...], "rows": [{...}, ...],
// "ms": milliseconds}, ...], rows as DuckDB's JSON values (BIGINT as a
// string, lists as arrays). Relative paths in the SQL are read from the
// current directory.
//
//   node tests/pcap/duckdb_sql.js MODULES FILE.sql
'use strict';
const path = require('node:path');
const fs = require('node:fs');

async function main() {
    const [modules, file] = process.argv.slice(2);
    if (!modules || !file) {
        throw new Error('usage: node duckdb_sql.js MODULES FILE.sql');
    }
    const duckdb = require(path.join(path.resolve(modules), 'node_modules', '@duckdb', 'node-api'));
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const statements = await connection.extractStatements(fs.readFileSync(file, 'utf8'));
    const out = [];
    for (let i = 0; i < statements.count; i++) {
        const started = process.hrtime.bigint();
        const prepared = await statements.prepare(i);
        const reader = await prepared.runAndReadAll();
        out.push({
            sql: i,
            columns: reader.columnNames(),
            rows: reader.getRowObjectsJson(),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
        });
    }
    connection.closeSync();
    instance.closeSync();
    process.stdout.write(JSON.stringify({ version: duckdb.version(), results: out }) + '\n');
}

main().catch((e) => {
    process.stderr.write(`duckdb_sql.js: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
});
