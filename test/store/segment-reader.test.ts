// SegmentReader: records read back by offset, within a window, past it, and larger than it.
import { joinBody } from "../../src/broker/values/message-body.js";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBasicProperties } from "../../src/amqp/codec/generated.js";
import { createMessage } from "../../src/broker/message.js";
import { encodeRecordHead, fillRecordChecksum } from "../../src/store/message-record.js";
import { SEGMENT_MAGIC } from "../../src/store/segment.js";
import { SegmentReader } from "../../src/store/segment-reader.js";

describe("SegmentReader", () => {
  it("reads every record of a segment by offset, including one larger than a window", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-reader-"));
    const props = encodeBasicProperties({ deliveryMode: 2 });
    const sizes = [10, 1000, 300 * 1024, 5, ...Array.from({ length: 600 }, (_, i) => 500 + i)];
    const parts: Buffer[] = [SEGMENT_MAGIC];
    const offsets: number[] = [];
    let pos = SEGMENT_MAGIC.length;
    sizes.forEach((n, i) => {
      const m = createMessage("", "q", { deliveryMode: 2 }, props, Buffer.alloc(n, i % 251), 0);
      const head = encodeRecordHead(Buffer.from("/\u0000q"), m, props, i + 1);
      offsets.push(pos);
      parts.push(head, props, joinBody(m.body));
      fillRecordChecksum(parts, parts.length - 3, 3);
      pos += head.length + props.length + n;
    });
    const path = join(dir, "00000001.seg");
    writeFileSync(path, Buffer.concat(parts));
    const reader = new SegmentReader();
    // In order (windows reused), then a jump backwards.
    for (const i of [...sizes.keys(), 1, 0]) {
      const r = reader.read(1, path, offsets[i]!);
      assert.ok(r, `record ${i}`);
      assert.equal(r.storeSeq, i + 1);
      assert.ok((r.body as Buffer).equals(Buffer.alloc(sizes[i]!, i % 251)));
    }
    assert.equal(reader.read(1, path, pos), null, "past the end");
    assert.equal(reader.read(1, path, offsets[3]! + 1), null, "not a record start");
    reader.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });
});
