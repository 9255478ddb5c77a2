/** Where progress goes: a TTY gets a bar redrawn in place, anything else a line every 10 %. */
export interface ProgressBar {
  start(what: string, total: number): void;
  update(done: number): void;
  finish(): void;
}

export const silentProgress: ProgressBar = { start() {}, update() {}, finish() {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  let what = '';
  let total = 0;
  let started = 0;
  let lastDecile = -1;
  const line = (done: number) => {
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(share * width);
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    return `导入${what} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${done}/${total} 条，${rate} 条/秒`;
  };
  return {
    start(name, count) {
      what = name;
      total = count;
      started = Date.now();
      lastDecile = -1;
      if (stream.isTTY) stream.write(line(0));
    },
    update(done) {
      if (stream.isTTY) {
        stream.write(`\r${line(done)}`);
        return;
      }
      const decile = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (decile !== lastDecile) {
        lastDecile = decile;
        stream.write(`${line(done)}\n`);
      }
    },
    finish() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
