import type { FastifyInstance } from 'fastify';

/**
 * The owner pages' only stylesheet: system fonts, one column, large touch targets. Nothing may
 * make a page wider than the window, down to a phone's 390 px: a long word (an e-mail, a URL, a
 * SKU) breaks anywhere rather than widen its box, except in tables, whose columns would then be
 * squeezed to a letter or two; a table scrolls in its own box instead (layout.ts tableBox).
 */
const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2327;background:#f6f7f7;overflow-wrap:anywhere}
.top{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;padding:.75rem 1rem;background:#1d2327;color:#fff}
.top a{color:#fff}
.brand{font-weight:700;text-decoration:none;font-size:1.1rem}
.top nav{display:flex;align-items:center;gap:1rem;flex-wrap:wrap}
.who{opacity:.8}
main{max-width:44rem;margin:0 auto;padding:1rem}
main.wide{max-width:80rem}
main.wide form.stack{max-width:44rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
a{color:#0a58ca}
form.stack p,form.stack ul{margin:0}
form.stack{display:grid;gap:.75rem;background:#fff;padding:1rem;border:1px solid #dcdcde;border-radius:8px}
label{display:grid;gap:.25rem;font-weight:600}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=date],textarea,select{font:inherit;padding:.6rem;border:1px solid #8c8f94;border-radius:6px;width:100%}
fieldset{border:1px solid #dcdcde;border-radius:6px;padding:.5rem .75rem}
fieldset label{display:flex;gap:.5rem;font-weight:400;align-items:center;padding:.25rem 0}
label:has(> input[type=checkbox]){display:flex;gap:.5rem;font-weight:400;align-items:center}
td input[type=number]{font:inherit;padding:.4rem;border:1px solid #8c8f94;border-radius:6px;width:5.5rem}
button{font:inherit;padding:.6rem 1.1rem;border-radius:6px;border:1px solid #0a58ca;background:#0a58ca;color:#fff;cursor:pointer;min-height:44px}
button.secondary{background:#fff;color:#1d2327;border-color:#8c8f94}
button.danger{background:#b32d2e;border-color:#b32d2e}
button.link{background:none;border:none;color:#fff;text-decoration:underline;padding:0;min-height:auto}
button:focus-visible,a:focus-visible,input:focus-visible,.scroll:focus-visible{outline:3px solid #f0b849;outline-offset:2px}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}
.notice{padding:.75rem 1rem;border-radius:6px}
.notice.error{background:#fcf0f1;border:1px solid #b32d2e}
.notice.info{background:#f0f6fc;border:1px solid #0a58ca}
.card{background:#fff;border:1px solid #dcdcde;border-radius:8px;padding:1rem;margin:.75rem 0}
.card h3{margin:0 0 .25rem;font-size:1.05rem}
.meta{color:#50575e;font-size:.9rem}
code{overflow-wrap:anywhere}
.secret{font-size:1.05rem;background:#fff;padding:.2rem .4rem;border:1px solid #dcdcde}
ul.scopes{padding-left:1.25rem}
.app{display:flex;gap:.75rem;align-items:center}
.icon{border-radius:10px;flex:none}
.avatar{width:48px;height:48px;border-radius:10px;background:#2271b1;color:#fff;display:grid;place-items:center;font-weight:700;font-size:1.4rem;flex:none}
table{width:100%;border-collapse:collapse;overflow-wrap:normal}
caption{text-align:left;padding:.25rem 0}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #dcdcde;vertical-align:top}
form.inline{display:inline}
/* A table's box: white covers that scroll with the table hide a shadow at each edge until there is
   more table past that edge; the caption stays in view as the table scrolls under it. */
.scroll{overflow-x:auto;container-type:inline-size;background:linear-gradient(to right,#fff 30%,#fff0) left/2rem 100% no-repeat local,linear-gradient(to left,#fff 30%,#fff0) right/2rem 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0003,#0000) left/.75rem 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/.75rem 100% no-repeat scroll,#fff}
.scroll caption{position:sticky;left:0;max-width:100cqi}
ul.filters{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0}
/* A store's e-mail shown as its shopper would see it (admin/emails/). */
iframe.email{display:block;width:100%;height:32rem;border:1px solid #c3c4c7;background:#fff}
pre.email{white-space:pre-wrap}
.product-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:1rem;list-style:none;padding:0}
.product-grid .card{margin:0}
.product-grid h2{font-size:1.05rem;margin:.5rem 0 .25rem}
.thumb{display:block;width:100px;height:100px;object-fit:cover;border-radius:6px;background:#f0f0f1}
.thumb.empty{display:grid;place-items:center;color:#50575e;font-size:.8rem}
.hint{font-weight:400;color:#50575e;font-size:.9rem}
.field-error{font-weight:600;color:#b32d2e}
.field{display:grid;gap:.25rem}
.field.check{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.field.check label{font-weight:400}
fieldset .field:not(.check) label{display:block;font-weight:600;padding:0}
a.button{display:inline-block;padding:.6rem 1.1rem;border-radius:6px;background:#0a58ca;color:#fff;text-decoration:none}
form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end}
ol.images{list-style:none;padding:0}
.image-item{display:grid;gap:.5rem}
progress{width:100%}
`;

export function registerAssets(app: FastifyInstance): void {
  app.get('/assets/emporium.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );
}
