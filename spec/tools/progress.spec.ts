import { expect } from 'chai';
import { Writable } from 'node:stream';
import { startProgress } from '../../tools/lib/progress.js';

class Captured extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe('tools/lib/progress', () => {
  it('off a terminal: plain lines at each tenth of the work, never a carriage return', () => {
    const stream = new Captured(false);
    const p = startProgress('replay verify', 10_000, 'entries', { stream, now: () => 0 });
    for (let i = 0; i < 10_000; i++) p.tick();
    p.end();
    const lines = stream.text.trimEnd().split('\n');
    expect(lines).to.have.length(11);
    expect(lines[0]).to.equal('replay verify: 0% (0/10,000 entries)');
    expect(lines[4]).to.equal('replay verify: 40% (4,000/10,000 entries)');
    expect(lines[10]).to.equal('replay verify: 100% (10,000/10,000 entries)');
    expect(stream.text).not.to.include('\r');
    expect(stream.text).not.to.include('\x1b');
  });

  it('off a terminal: also a line when a few seconds pass within one tenth, and a last line at the end', () => {
    const stream = new Captured(false);
    let now = 0;
    const p = startProgress('load', 1000, 'points', { stream, now: () => now, everyMs: 5000 });
    p.update(10);
    now = 4999;
    p.update(20);
    now = 5000;
    p.update(30);
    now = 20_000;
    p.update(30);
    p.update(57);
    p.end();
    p.end();
    expect(stream.text.trimEnd().split('\n')).to.deep.equal(['load: 0% (0/1,000 points)', 'load: 3% (30/1,000 points)', 'load: 5% (57/1,000 points)']);
  });

  it('on a terminal: a redrawn bar on the stream, and notes printed beside it on their own lines', () => {
    const stream = new Captured(true);
    const out = new Captured(false);
    const p = startProgress('crash-test', 4, 'cycles', { stream });
    p.update(2);
    p.aside(() => out.write('cycle 2: fine\n'));
    p.update(4);
    p.end();
    expect(out.text).to.equal('cycle 2: fine\n');
    expect(stream.text).to.include('crash-test [');
    expect(stream.text).to.include('100% | 4/4 cycles');
    expect(stream.text).to.match(/\r|\x1b\[/);
  });
});
