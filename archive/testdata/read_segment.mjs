// Reads an archive segment with hyparquet and its Zstandard decoder hyparquet-compressors (npm
// packages pinned in the repository's package.json), an implementation of Parquet that is not
// the relayer's, and prints what it found as one JSON document: the file's row count, its
// schema's leaf columns with their types and compression codecs, and every row. 64-bit integers are printed as decimal strings and timestamps as ISO 8601 (a
// JavaScript Date holds milliseconds). Usage: node read_segment.mjs <segment.parquet>
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const file = await asyncBufferFromFile(process.argv[2]);
const metadata = await parquetMetadataAsync(file);
const rows = await parquetReadObjects({ file, metadata, compressors });
const columns = metadata.schema.slice(1).map((c, i) => ({
  name: c.name,
  type: c.type,
  logical: c.logical_type ? c.logical_type.type + (c.logical_type.unit ? '(' + c.logical_type.unit + ')' : '') : '',
  codecs: [...new Set(metadata.row_groups.map((g) => g.columns[i].meta_data.codec))].join(','),
}));
const out = { numRows: String(metadata.num_rows), columns, rows };
process.stdout.write(JSON.stringify(out, (_, v) => {
  if (typeof v === 'bigint') return v.toString();
  return v;
}));
