// Recent projects, kept in this browser only (localStorage): a project is any folder an agent
// works in, and the server keeps no list of them.

const KEY = 'loadout.recentProjects';
const KEEP = 8;

/** The projects opened here, most recent first. */
export function recentProjects() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(stored) ? stored.filter((item) => typeof item === 'string' && item !== '').slice(0, KEEP) : [];
  } catch {
    return [];
  }
}

/** Puts `project` first in the list. */
export function rememberProject(project) {
  const list = [project, ...recentProjects().filter((item) => item !== project)].slice(0, KEEP);
  try {
    localStorage.setItem(KEY, JSON.stringify(list));
  } catch {
    // Storage full or blocked: the list is a convenience, the screen works without it.
  }
}
