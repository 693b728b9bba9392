/** `npm start -w examples/connect-app`: the app on 127.0.0.1:PORT, configured from the environment. */
import { ConfigError, configFromEnv } from './config.ts';
import { startApp } from './app.ts';

let config;
try {
  config = configFromEnv();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
const app = await startApp(config);
console.log(`Connect app listening on ${app.url} (redirect URI ${config.appUrl}/callback)`);
app.events.on('connected', (id: string) => console.log(`connected site ${id}`));
app.events.on('forgotten', (id: string) => console.log(`forgot site ${id}: the owner revoked the app`));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
