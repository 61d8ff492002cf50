"""Prints one line per MCAP file given: its name, a space, and the SHA-256 of what a reader
sees in it, in file order: each schema (id, name, encoding, data), each channel (id, topic,
encoding, schema id, metadata) and each message (channel id, sequence, log and publish time,
data), as the official `mcap` reader returns them. The header's library string (which names
the package version) is left out, so the digest changes only when the content does.
Usage: mcap-digest.py FILE.mcap..."""
import hashlib, struct, sys
from mcap.stream_reader import StreamReader
from mcap.records import Channel, Message, Schema

def field(h, b):
    h.update(struct.pack("<Q", len(b)))
    h.update(b)

for path in sys.argv[1:]:
    h = hashlib.sha256()
    seen = set()
    with open(path, "rb") as f:
        for r in StreamReader(f, skip_magic=False, emit_chunks=False, validate_crcs=True).records:
            if isinstance(r, Schema) and ("s", r.id) not in seen:
                seen.add(("s", r.id))
                field(h, b"schema %d" % r.id)
                for b in (r.name.encode(), r.encoding.encode(), bytes(r.data)):
                    field(h, b)
            elif isinstance(r, Channel) and ("c", r.id) not in seen:
                seen.add(("c", r.id))
                field(h, b"channel %d %d" % (r.id, r.schema_id))
                for b in (r.topic.encode(), r.message_encoding.encode()):
                    field(h, b)
                for k, v in r.metadata.items():
                    field(h, k.encode())
                    field(h, v.encode())
            elif isinstance(r, Message):
                field(h, b"message %d %d %d %d" % (r.channel_id, r.sequence, r.log_time, r.publish_time))
                field(h, bytes(r.data))
    print(path.rsplit("/", 1)[-1], h.hexdigest())
