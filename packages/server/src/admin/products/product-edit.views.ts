import { hasAttributes, type ProductType } from '../../catalog/product-types.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { checkbox, formNotice, stateOf, textArea, textField } from './product-fields.ts';
import type { FormError } from './product-form.ts';
import { priceFields, thumbnail, TYPE_WORDS, type ShownProduct } from './products.views.ts';
import { newVariantForm, pricingValues, variantCard, type VariantPage } from './variant-card.views.ts';
import { csrfInput } from '../../pages/forms.ts';
import { MAX_DOWNLOAD_MB } from '../../catalog/digital-goods.ts';

/**
 * A product's page for its owner: one form per change (the details, each variant, the image it
 * shows, its stock, each image), so that each save is one call of the API's services, all of it
 * or none. The variants' forms are in variant-card.views.ts.
 */

export interface EditView {
  csrf: string;
  /** A fresh idempotency key for each stock form, so a form sent twice adjusts once. */
  stockKey: () => string;
  error?: FormError;
  notice?: string;
}

function detailsForm(base: string, product: ShownProduct, view: EditView): Html {
  const state = stateOf(
    'details',
    {
      name: product.name,
      description: product.description,
      isVisible: product.isVisible ? 'on' : '',
      variantAttributes: (product.variantAttributes ?? []).join(', '),
      urlSlug: product.urlSlug,
      tags: product.tags.join(', '),
      seoTitle: product.seoOptions?.title ?? '',
      seoDescription: product.seoOptions?.description ?? '',
      ...pricingValues(product.pricing),
    },
    view.error,
  );
  const type = product.type as ProductType;
  return html`<form class="stack" method="post" action="${base}" novalidate aria-labelledby="details">
    ${csrfInput(view.csrf)} ${formNotice(state)}
    <p class="meta">Type: ${TYPE_WORDS[type] ?? type} · <a href="${product.url}">${product.url}</a></p>
    ${textField(state, 'name', 'Name', { required: true })}
    ${textArea(state, 'description', 'Description', 'HTML; scripts and event handlers are removed')}
    ${checkbox(state, 'isVisible', 'Visible in the store')}
    ${textField(state, 'urlSlug', 'Address in the store', { hint: 'letters, digits and single hyphens' })}
    ${textField(state, 'tags', 'Tags', { hint: 'separated by commas, such as summer, linen' })}
    ${
      hasAttributes(type)
        ? textField(state, 'variantAttributes', 'Option names', {
            hint: 'separated by commas; a name removed is removed from every variant',
          })
        : ''
    }
    ${type === 'DIGITAL' ? priceFields(state, '') : ''} ${textField(state, 'seoTitle', 'Search engine title')}
    ${textField(state, 'seoDescription', 'Search engine description')}
    <div class="actions"><button>Save details</button></div>
  </form>`;
}

function imageItem(base: string, product: ShownProduct, index: number, view: EditView): Html {
  const image = product.images[index]!;
  const url = `${base}/images/${image.id}`;
  const state = stateOf(`image-${image.id}`, { altText: image.altText }, view.error);
  const last = index === product.images.length - 1;
  return html`<li class="card image-item">
    ${thumbnail(image)}
    <form class="stack" method="post" action="${url}" novalidate aria-label="Alt text of image ${index + 1}">
      ${csrfInput(view.csrf)} ${formNotice(state)}
      ${textField(state, 'altText', `Alt text of image ${index + 1}`, { hint: 'what the image shows, for people who cannot see it' })}
      <div class="actions"><button class="secondary">Save alt text</button></div>
    </form>
    <form class="actions" method="post" action="${url}/move">
      ${csrfInput(view.csrf)}
      ${index > 0 ? html`<button class="secondary" name="direction" value="up" aria-label="Move image ${index + 1} up">Move up</button>` : ''}
      ${last ? '' : html`<button class="secondary" name="direction" value="down" aria-label="Move image ${index + 1} down">Move down</button>`}
    </form>
    <form method="post" action="${url}/delete">
      ${csrfInput(view.csrf)}
      <button class="danger" aria-label="Delete image ${index + 1}">Delete image</button>
    </form>
  </li>`;
}

function uploadForm(base: string, view: EditView): Html {
  const state = stateOf('upload', {}, view.error);
  return html`<form
    class="stack"
    id="upload-form"
    method="post"
    action="${base}/images"
    enctype="multipart/form-data"
    aria-labelledby="add-images"
  >
    ${csrfInput(view.csrf)} ${formNotice(state)}
    <div class="field">
      <label for="upload-files">Image files</label>
      <input
        type="file"
        id="upload-files"
        name="file"
        multiple
        accept="image/jpeg,image/png,image/gif,image/webp"
        aria-describedby="upload-hint"
      />
      <span class="hint" id="upload-hint">JPEG, PNG, GIF or WebP, at most 20 MB each</span>
    </div>
    <progress id="upload-progress" max="100" value="0" hidden aria-label="Upload progress"></progress>
    <p id="upload-status" role="status"></p>
    <div class="actions"><button>Upload</button></div>
  </form>`;
}

/**
 * A download's file: the one it sells now, and a form to upload or replace it. Without a file the
 * product is not for sale (the store's page says so).
 */
function downloadForm(base: string, product: ShownProduct, view: EditView): Html {
  const state = stateOf('download', {}, view.error);
  const good = product.digitalGood;
  return html`<h2 id="download">File to download</h2>
    ${
      good
        ? html`<p>Buyers download <strong class="download-file">${good.filename}</strong>.</p>`
        : html`<p>No file yet: the product is not for sale until it has one.</p>`
    }
    <form
      class="stack"
      method="post"
      action="${base}/download"
      enctype="multipart/form-data"
      aria-labelledby="download"
    >
      ${csrfInput(view.csrf)} ${formNotice(state)}
      <div class="field">
        <label for="download-file">${good ? 'Replace the file' : 'File'}</label>
        <input type="file" id="download-file" name="file" required aria-describedby="download-hint" />
        <span class="hint" id="download-hint">any kind of file, at most ${MAX_DOWNLOAD_MB} MB</span>
      </div>
      <div class="actions"><button>Upload file</button></div>
    </form>`;
}

export function editBody(site: WebsitesTable, product: ShownProduct, view: EditView): Html {
  const base = `/sites/${site.id}/products/${product.id}`;
  const variants: VariantPage = {
    base,
    product,
    csrf: view.csrf,
    stockKey: view.stockKey,
    error: view.error,
    standard: site.measurement_standard,
  };
  return html`<p><a href="/sites/${site.id}/products">All products</a></p>
    ${view.notice ? html`<p class="notice info" role="status">${view.notice}</p>` : ''}
    ${view.error?.form === 'page' ? html`<p class="notice error" role="alert">${view.error.message}</p>` : ''}
    <h2 id="details">Details</h2>
    ${detailsForm(base, product, view)}
    ${
      product.variants
        ? html`<h2 id="variants">Variants</h2>
            ${product.variants.map((v) => variantCard(variants, v))}
            <h2 id="add-variant">Add a variant</h2>
            ${newVariantForm(variants)}`
        : ''
    }
    ${product.type === 'DIGITAL' ? downloadForm(base, product, view) : ''}
    <h2 id="images">Images</h2>
    ${
      product.images.length
        ? html`<ol class="images">
            ${product.images.map((_, i) => imageItem(base, product, i, view))}
          </ol>`
        : html`<p>No images yet.</p>`
    }
    <h2 id="add-images">Add images</h2>
    ${uploadForm(base, view)}
    <h2 id="delete">Delete</h2>
    <p><a href="${base}/delete">Delete this product…</a></p>
    <script src="/assets/product-images.js" defer></script>`;
}
