// A bounded memo for pure functions of a short text the mock sees again and again (header values, ids). Bounded in
// entries (the cache starts over when full) and in key length (a longer text is computed each time and never kept),
// so hostile input costs its own computation and nothing more.
export type MemoLimits = { entries: number; keyLength: number };

export function memoized<T>(fn: (key: string) => T, limits: MemoLimits): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    if (key.length > limits.keyLength) return fn(key);
    if (cache.has(key)) return cache.get(key) as T;
    const value = fn(key);
    if (cache.size >= limits.entries) cache.clear();
    cache.set(key, value);
    return value;
  };
}
