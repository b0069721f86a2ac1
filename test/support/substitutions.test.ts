import { describe, expect, it } from 'vitest';
import { Substitutions } from './substitutions.js';

describe("the README test's substitutions", () => {
  it('maps a port drawn equal to another name of the page once, both ways (the pairs apply in one pass)', () => {
    const subs = new Substitutions();
    // the page's 20200+4 drew 20500…20503, its 8545+4 drew 20202…20205
    for (let i = 0; i < 4; i++) subs.add(String(20200 + i), String(20500 + i));
    for (let i = 0; i < 4; i++) subs.add(String(8545 + i), String(20202 + i));
    expect(subs.forward('-p 30300,20200,8545 --channel 20202 --rpc 8547')).toBe('-p 30300,20500,20202 --channel 20502 --rpc 20204');
    expect(subs.back('peers 127.0.0.1:20500, 127.0.0.1:20502, rpc 127.0.0.1:20202')).toBe('peers 127.0.0.1:20200, 127.0.0.1:20202, rpc 127.0.0.1:8545');
    // the same ports named in the other order (serve's `ports: 8545+4 20200+4`)
    const serve = new Substitutions();
    for (let i = 0; i < 4; i++) serve.add(String(8545 + i), String(20202 + i));
    for (let i = 0; i < 4; i++) serve.add(String(20200 + i), String(20500 + i));
    expect(serve.forward('serve --nodes 4 --rpc-port 8545 --channel-port 20200')).toBe('serve --nodes 4 --rpc-port 20202 --channel-port 20500');
  });

  it('replaces a number only where it stands alone, paths wherever they occur, the longest first', () => {
    const subs = new Substitutions();
    subs.add('8545', '31001');
    subs.add('/tmp/chain', '/tmp/twinchain-readme-tmp-Ab12');
    subs.add('/tmp/chain/nodes', '/tmp/elsewhere');
    expect(subs.forward('18545 1.8545 8545x v8545 :8545/ cd /tmp/chain/nodes && ls /tmp/chain')).toBe('18545 1.8545 8545x v8545 :31001/ cd /tmp/elsewhere && ls /tmp/twinchain-readme-tmp-Ab12');
    expect(subs.back('http://127.0.0.1:31001 in /tmp/twinchain-readme-tmp-Ab12/x')).toBe('http://127.0.0.1:8545 in /tmp/chain/x');
  });

  it('keeps the first pair for a name given twice, and leaves text alone with no pairs', () => {
    const subs = new Substitutions();
    expect(subs.forward('8545')).toBe('8545');
    subs.add('8545', '1');
    subs.add('8545', '2');
    expect(subs.forward('8545')).toBe('1');
  });
});
