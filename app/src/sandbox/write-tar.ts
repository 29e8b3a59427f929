/** A one-entry tar archive holding an empty directory `name/` with the given mode and owner. */
export function tarDirectory(name: string, mode: number, owner: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(`${name}/`, 0, 100, "utf8");
  header.write(`${mode.toString(8).padStart(7, "0")}\0`, 100, "ascii");
  header.write(`${owner.toString(8).padStart(7, "0")}\0`, 108, "ascii");
  header.write(`${owner.toString(8).padStart(7, "0")}\0`, 116, "ascii");
  header.write(`${"0".padStart(11, "0")}\0`, 124, "ascii");
  header.write(
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, "0")}\0`,
    136,
    "ascii",
  );
  header.write("5", 156, "ascii");
  header.write("ustar\0", 257, "ascii");
  header.write("00", 263, "ascii");
  // The checksum is computed with its own field as spaces.
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return Buffer.concat([header, Buffer.alloc(1024)]);
}
