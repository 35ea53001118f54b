const NONE: ReadonlySet<number> = new Set();

/** Label → the ids of the points that carry it. */
export class LabelIndex {
  private readonly byLabel = new Map<string, Set<number>>();

  add(id: number, labels: readonly string[]): void {
    for (const label of labels) {
      let ids = this.byLabel.get(label);
      if (!ids) this.byLabel.set(label, (ids = new Set()));
      ids.add(id);
    }
  }

  remove(id: number, labels: readonly string[]): void {
    for (const label of labels) {
      const ids = this.byLabel.get(label);
      if (!ids) continue;
      ids.delete(id);
      if (ids.size === 0) this.byLabel.delete(label);
    }
  }

  pointsWith(label: string): ReadonlySet<number> {
    return this.byLabel.get(label) ?? NONE;
  }
}
