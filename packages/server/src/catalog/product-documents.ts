/**
 * Rendered product JSON, kept in memory and keyed by (id, modifiedOn). Reads first fetch the
 * current version of each product from the database (an index-only query), so a cached document
 * is used only while it is still current: no invalidation is needed, on this instance or any
 * other. This works because modifiedOn strictly increases on every write to a product, its
 * variants or its images (products.service.ts). Building a 115 KB page from rows on every request
 * costs far more than sending prebuilt bytes (see bench/README.md).
 */
export class ProductDocuments {
  private readonly entries = new Map<string, { version: number; json: string }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(id: string, version: number): string | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.version !== version) return undefined;
    // Map order is recency order: move the hit to the end.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.json;
  }

  set(id: string, version: number, json: string): void {
    const old = this.entries.get(id);
    if (old) {
      if (old.version > version) return; // a newer version is cached already
      this.entries.delete(id);
      this.bytes -= old.json.length;
    }
    this.entries.set(id, { version, json });
    this.bytes += json.length;
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= entry.json.length;
    }
  }
}
