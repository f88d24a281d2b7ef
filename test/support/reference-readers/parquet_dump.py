"""Reads Parquet files with pyarrow (requirements.txt beside this file) and prints, as one JSON
array, per file: the Arrow schema pyarrow reads, the Parquet schema and codec of its first column
chunk, the key-value metadata keys, and the rows as pyarrow converts them to Python values
(decimals, dates, times and timestamps as their str(), bytes as hex, maps as [key, value] pairs).
Run by reference-readers.ts: python parquet_dump.py FILE..."""
import base64
import json
import sys

import pyarrow.parquet as pq


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


out = []
for path in sys.argv[1:]:
    f = pq.ParquetFile(path)
    meta = f.metadata
    table = f.read()
    out.append({
        "file": path,
        "arrow_schema": str(table.schema.remove_metadata()),
        "parquet_schema": str(f.schema),
        "codec": meta.row_group(0).column(0).compression if meta.num_row_groups else None,
        "metadata_keys": sorted(k.decode() for k in (meta.metadata or {}).keys()),
        "rows": plain(table.to_pylist()),
    })
json.dump(out, sys.stdout)
