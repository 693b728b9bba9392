import sanitizeHtml from 'sanitize-html';

/**
 * Product descriptions are HTML from apps; stored sanitized so no script, event handler or
 * javascript: URL ever reaches a storefront (security AB-2).
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'span', 'del', 'ins', 's', 'u'],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    '*': ['class'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
};

export function sanitizeDescription(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/** The text of a description, for search. */
export function descriptionText(html: string): string {
  return sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} });
}
