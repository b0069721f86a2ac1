import type { Cluster } from './sim-cluster.js';

/**
 * Crashes the first node on which `pick` finds something, right after the simulation event that
 * made it so (the node's unsynced writes are lost with it), from virtual time `fromMs` on.
 * `found()` says which node and what was found; `restart()` brings it back and runs its boot.
 */
export function crashWhen<T>(c: Cluster, pick: (name: string) => T | undefined, fromMs = 0) {
  let hit: { name: string; found: T } | undefined;
  c.sim.afterEvent(() => {
    if (hit || c.sim.now < fromMs) return;
    for (const name of c.names) {
      const found = pick(name);
      if (found === undefined) continue;
      hit = { name, found };
      c.sim.crash(name);
      return;
    }
  });
  return {
    found: () => hit,
    async restart(): Promise<{ name: string; found: T }> {
      if (!hit) throw new Error('crashWhen: no node was crashed');
      c.sim.restart(hit.name);
      await c.sim.run({ until: c.sim.now + 1 });
      return hit;
    },
  };
}
