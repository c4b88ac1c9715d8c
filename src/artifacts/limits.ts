// How many entries one codex_files page may hold: the listing applies them, the tool's input schema validates with
// them. Kept apart so the input schema loads without the listing's glob matching.
export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 500;
