const { replayRecording } = await import('/work/main/dist/replay/replayer.js');
const { measureExecutor } = await import('/work/main/dist/bench/exec-bench.js');
await replayRecording('/tmp/prof/dense.jsonl.gz', { prioritize: true });
for (let k = 0; k < 8; k++) {
  await measureExecutor('storage');
  globalThis.__mine = [];
  await replayRecording('/tmp/prof/dense.jsonl.gz', { prioritize: true });
  console.log(globalThis.__mine.map(([n, p, t]) => `${n}.${p}:${t.toFixed(1)}`).join(' '));
}
