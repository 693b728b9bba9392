import { decodeHTML } from 'entities';
import sanitizeHtml from 'sanitize-html';

/**
 * Product descriptions are HTML from apps; stored sanitized so no script, event handler or
 * javascript: URL ever reaches a storefront (security AB-2). A picture without alt text is
 * given an empty one: merchants paste such HTML, and a screen reader would otherwise read out
 * the picture's address. One with alt text keeps it.
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
  transformTags: {
    img: (tagName, attribs) => ({ tagName, attribs: 'alt' in attribs ? attribs : { ...attribs, alt: '' } }),
  },
};

export function sanitizeDescription(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/** Tags that separate words: their text must not run into the next block's. */
const BLOCK_TAG = /<\/?(?:p|div|br|hr|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|pre|section|article)\b/gi;

/** The plain text of a description, for search: no tags, entities decoded, blocks apart. */
export function descriptionText(html: string): string {
  return decodeHTML(sanitizeHtml(html.replace(BLOCK_TAG, ' $&'), { allowedTags: [], allowedAttributes: {} }));
}
