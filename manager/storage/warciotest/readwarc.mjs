// Reads WARC files with the independent warcio package and prints, for
// every record, its type, target URI, declared block and payload digests,
// the SHA-1 (base32) of the block as warcio returns it (the payload, for
// a record holding an HTTP message, whose status it also prints) and the
// record IDs that link records.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { WARCParser } from 'warcio';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32(buf) {
  let bits = 0, value = 0, out = '';
  for (const b of buf) {
    value = (value << 8) | b; bits += 8;
    while (bits >= 5) { out += B32[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8) out += '=';
  return out;
}

const out = [];
for (const file of process.argv.slice(2)) {
  const parser = new WARCParser(fs.createReadStream(file));
  for await (const record of parser) {
    const body = Buffer.from(await record.readFully(false));
    out.push({
      type: record.warcType,
      target: record.warcTargetURI || '',
      declared: record.warcHeader('WARC-Block-Digest') || '',
      computed: 'sha1:' + base32(crypto.createHash('sha1').update(body).digest()),
      digest: record.warcHeader('Hivecrawl-Digest') || '',
      payload: record.warcHeader('WARC-Payload-Digest') || '',
      status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : 0,
      id: record.warcHeader('WARC-Record-ID') || '',
      concurrentTo: record.warcHeader('WARC-Concurrent-To') || '',
      refersTo: record.warcHeader('WARC-Refers-To') || '',
    });
  }
}
console.log(JSON.stringify(out));
