import type { FastifyInstance } from 'fastify';

/** The store's only stylesheet: system fonts, a product grid, large touch targets, visible focus. */
const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2327;background:#fff}
.skip{position:absolute;left:-999px;top:0;background:#1d2327;color:#fff;padding:.5rem 1rem;z-index:1}
.skip:focus{left:0}
.shop-top{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;padding:1rem;border-bottom:1px solid #dcdcde}
.shop-name{font-weight:700;font-size:1.25rem;color:#1d2327;text-decoration:none}
.shop-top nav{display:flex;gap:1rem}
main{max-width:72rem;margin:0 auto;padding:1rem}
main:focus{outline:none}
h1{font-size:1.75rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
a{color:#0a58ca}
a:focus-visible,button:focus-visible,select:focus-visible,input:focus-visible{outline:3px solid #f0b849;outline-offset:2px}
ul.pages,ul.products{list-style:none;padding:0;margin:0}
ul.pages li{margin:.5rem 0;font-size:1.15rem}
ul.products{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1.25rem}
ul.products li a{display:block;color:inherit;text-decoration:none}
ul.products h2{font-size:1.05rem;margin:.5rem 0 .25rem}
ul.products li a:hover h2{text-decoration:underline}
.thumb{aspect-ratio:1;width:100%;height:auto;object-fit:cover;background:#f0f0f1;border-radius:6px;display:block}
.noimage{aspect-ratio:1;width:100%;background:#f0f0f1;border-radius:6px;display:grid;place-items:center;color:#50575e}
.price{font-weight:600}
.price del{color:#50575e;font-weight:400;margin-left:.4rem}
.sale{color:#b32d2e}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:4px;background:#1d2327;color:#fff;font-size:.85rem}
.pager{display:flex;justify-content:space-between;margin:2rem 0}
.product{display:grid;gap:2rem}
@media (min-width:48rem){.product{grid-template-columns:1fr 1fr}}
.gallery{display:grid;gap:.75rem}
.gallery img{width:100%;height:auto;border-radius:6px}
.gallery ul{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(4,1fr);gap:.5rem}
.description{margin:1rem 0}
form.buy{display:grid;gap:.75rem;max-width:24rem}
label{display:grid;gap:.25rem;font-weight:600}
select,input[type=number],input[type=text],input[type=email]{font:inherit;padding:.6rem;border:1px solid #8c8f94;border-radius:6px;width:100%}
button{font:inherit;padding:.7rem 1.2rem;border-radius:6px;border:1px solid #0a58ca;background:#0a58ca;color:#fff;cursor:pointer;min-height:44px}
button:disabled{background:#8c8f94;border-color:#8c8f94;cursor:not-allowed}
.stock{margin:.25rem 0}
.notice{padding:.75rem 1rem;border-radius:6px}
.notice.error{background:#fcf0f1;border:1px solid #b32d2e}
.notice.info{background:#f0f6fc;border:1px solid #0a58ca}
.shop-foot{border-top:1px solid #dcdcde;color:#50575e;text-align:center;padding:1rem;margin-top:2rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #dcdcde}
.meta{color:#50575e;font-size:.9rem;font-weight:400}
.scroll{overflow-x:auto}
.field{margin:0 0 1rem}
.field-error{margin:.25rem 0 0;font-weight:600}
form.checkout{max-width:36rem}
fieldset{border:1px solid #dcdcde;border-radius:6px;padding:1rem;margin:0 0 1.5rem}
legend{font-weight:700;padding:0 .25rem}
button.link{background:none;border:none;color:#0a58ca;text-decoration:underline;padding:.5rem;min-height:44px}
a.button{display:inline-block;padding:.7rem 1.2rem;border-radius:6px;background:#0a58ca;color:#fff;text-decoration:none;min-height:44px}
.order-number{font-size:1.25rem}
ul.options{padding-left:1.2rem}
.not-online{color:#50575e;font-style:italic}
`;

export function registerStoreAssets(app: FastifyInstance): void {
  app.get('/assets/store.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );
}
