"""Reads MCAP files written by `jpreplay export --mcap` with the official `mcap` reader and
checks each against its recording (.jprec: events per channel, read with sqlite3) and golden
(trace lines per kind, A.13 lines). Usage: mcap-check.py MCAP_DIR RECORDINGS_DIR GOLDEN_DIR [--golden]
Checks: magic, footer and summary (its CRC computed here: the reader does not check it); the
data-section CRC and every chunk's CRC (the reader's validate_crcs); messages only in zstd
chunks, in time order in the file; statistics, summary channels, schemas and chunk indexes
agreeing; messages per channel equal to the recording's events per channel (the landmarks
twice: /input/landmarks and /foxglove/landmarks) and the golden's lines per kind (the replay's
trace equals its golden: verify holds the corpus to it); JSON messages with JSON Schemas.
Prints one JSON line per file (channels, schemas, messages, the /metrics channels' counts, the
first and last log time); exit 1 on the first finding, printed as "FAIL …"."""
import collections, json, os, sqlite3, struct, sys, zlib
from mcap.reader import make_reader
from mcap.stream_reader import StreamReader
from mcap.records import Chunk, Message, DataEnd, Footer
from mcap.stream_reader import breakup_chunk

def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)

def expected(rec, golden_dir, name, with_golden):
    db = sqlite3.connect("file:" + rec + "?mode=ro", uri=True)
    counts = collections.Counter()
    for ch, n in db.execute("SELECT c.name, SUM(k.count) FROM chunks k JOIN channels c ON c.id = k.channel_id GROUP BY c.name"):
        if n:
            counts["/input/" + ch] = n
    db.close()
    if counts.get("/input/landmarks"):
        counts["/foxglove/landmarks"] = counts["/input/landmarks"]
    def golden_lines(suffix):
        p = os.path.join(golden_dir, name + suffix)
        if not os.path.exists(p):
            return []
        with open(p, encoding="utf-8") as f:
            return [json.loads(l) for l in f if l.strip()]
    for line in golden_lines(".trace.jsonl"):
        counts["/trace/" + line["out"]] += 1
        if with_golden:
            counts["/golden/trace/" + line["out"]] += 1
    a13 = golden_lines(".a13.jsonl")
    if a13:
        counts["/a13"] = len(a13)
        if with_golden:
            counts["/golden/a13"] = len(a13)
    return counts

def check(path, rec, golden_dir, with_golden):
    name = os.path.basename(path)[: -len(".mcap")]
    data = open(path, "rb").read()
    # The summary CRC (the reader does not check it): summary start .. footer's summary_crc.
    magic = b"\x89MCAP0\r\n"
    if not (data.startswith(magic) and data.endswith(magic)):
        fail(f"{path}: no MCAP magic at both ends")
    footer_at = len(data) - 8 - 29
    op, length, summary_start, offset_start, summary_crc = struct.unpack_from("<BQQQI", data, footer_at)
    if op != 0x02 or length != 20 or summary_start == 0:
        fail(f"{path}: no footer with a summary")
    if zlib.crc32(data[summary_start : footer_at + 1 + 8 + 16]) != summary_crc:
        fail(f"{path}: summary CRC differs")
    # Data section CRC and every chunk's CRC, with the reader's validation; file order by time.
    last, streamed = -1, collections.Counter()
    saw_data_end = False
    with open(path, "rb") as f:
        for record in StreamReader(f, emit_chunks=True, validate_crcs=True).records:
            if isinstance(record, DataEnd):
                saw_data_end = record.data_section_crc != 0
            if isinstance(record, Chunk):
                if record.uncompressed_crc == 0 or record.compression != "zstd":
                    fail(f"{path}: chunk without a CRC or not zstd")
                for r in breakup_chunk(record, validate_crc=True):
                    if isinstance(r, Message):
                        if r.log_time < last:
                            fail(f"{path}: message at {r.log_time} after one at {last}")
                        last = r.log_time
                        streamed[r.channel_id] += 1
            elif isinstance(record, Message):
                fail(f"{path}: a message outside a chunk")
    if not saw_data_end:
        fail(f"{path}: no data-section CRC")
    with open(path, "rb") as f:
        reader = make_reader(f, validate_crcs=True)
        summary = reader.get_summary()
        if summary is None or summary.statistics is None:
            fail(f"{path}: no summary or statistics")
        st = summary.statistics
        topics = {cid: ch.topic for cid, ch in summary.channels.items()}
        got = collections.Counter({topics[c]: n for c, n in st.channel_message_counts.items()})
        want = expected(rec, golden_dir, name, with_golden)
        metrics = {t: n for t, n in got.items() if t.startswith("/metrics/")}
        core = collections.Counter({t: n for t, n in got.items() if not t.startswith("/metrics/")})
        if core != want:
            diff = {t: (core.get(t, 0), want.get(t, 0)) for t in set(core) | set(want) if core.get(t, 0) != want.get(t, 0)}
            fail(f"{path}: messages per channel (exported, expected) differ: {sorted(diff.items())}")
        if st.channel_count != len(summary.channels) or st.schema_count != len(summary.schemas):
            fail(f"{path}: statistics count {st.channel_count} channels / {st.schema_count} schemas, summary has {len(summary.channels)} / {len(summary.schemas)}")
        if len(summary.chunk_indexes) != st.chunk_count or st.chunk_count == 0:
            fail(f"{path}: {st.chunk_count} chunks, {len(summary.chunk_indexes)} chunk indexes")
        if {topics[c]: n for c, n in streamed.items()} != dict(got) or st.message_count != sum(got.values()):
            fail(f"{path}: statistics' counts differ from the chunks' messages")
        for cid, ch in summary.channels.items():
            schema = summary.schemas.get(ch.schema_id)
            if ch.message_encoding != "json" or schema is None or schema.encoding != "jsonschema":
                fail(f"{path}: {ch.topic}: not JSON with a JSON Schema")
            json.loads(schema.data)
        n = 0
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            json.loads(message.data)
            n += 1
        if n != st.message_count:
            fail(f"{path}: read {n} messages, statistics say {st.message_count}")
    return len(summary.channels), len(summary.schemas), st.message_count, metrics, (st.message_start_time, st.message_end_time)

def main():
    """Each MCAP file of MCAP_DIR against RECORDINGS_DIR/<name>.jprec and GOLDEN_DIR."""
    mcap_dir, rec_dir, golden_dir = sys.argv[1:4]
    with_golden = "--golden" in sys.argv[4:]
    files = sorted(f for f in os.listdir(mcap_dir) if f.endswith(".mcap"))
    if not files:
        fail(f"{mcap_dir}: no .mcap files")
    for f in files:
        rec = os.path.join(rec_dir, f[: -len(".mcap")] + ".jprec")
        c, s, m, metrics, (start, end) = check(os.path.join(mcap_dir, f), rec, golden_dir, with_golden)
        print(json.dumps({"file": f, "channels": c, "schemas": s, "messages": m, "metrics": metrics, "start_ns": start, "end_ns": end}, sort_keys=True))

main()
