// The capability view's data: state entries joined with the records that describe them.

/** Records by document path, from the session (what is on) and the listings (every copy, on or off). */
export function recordsByPath(session, lists) {
  const byPath = new Map();
  const add = (record) => {
    if (record !== null && typeof record === 'object' && typeof record.path === 'string' && typeof record.id === 'string')
      byPath.set(record.path, record);
  };
  for (const value of Object.values(session ?? {})) if (Array.isArray(value)) value.forEach(add);
  for (const list of lists) if (Array.isArray(list)) list.forEach(add);
  return byPath;
}

/** The copies a winner sets aside, as rows of their own level: visible, movable, not switchable. */
export function shadowsOf(entry, listed) {
  return (entry.shadowed ?? []).map((copy) => {
    const record = listed.get(copy.path);
    return {
      shadowedBy: entry,
      kind: entry.kind,
      id: record?.id ?? entry.id,
      name: record?.name ?? entry.name,
      path: copy.path,
      level: copy.level,
      plugin: copy.plugin,
    };
  });
}

export function compareIds(a, b) {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  return left < right ? -1 : left > right ? 1 : 0;
}
