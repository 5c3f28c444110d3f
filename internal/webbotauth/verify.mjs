// verify.mjs REQUEST.json: verifies a recorded request's Web Bot Auth
// signature with the web-bot-auth npm package's own verifier, the way a web
// site would: the key directory is fetched from the origin the request's
// Signature-Agent names, and the key is the directory's JWK whose RFC 7638
// thumbprint is the signature's keyid.
//
// REQUEST.json is {"url": "http://host:port/path", "headers": {name: value}}.
// Prints one JSON line, {"ok":true,"keyid":…} or {"ok":false,"error":…},
// and exits 0 only when the signature verified.
//
// Run by webbotauth_test.go from a directory whose node_modules holds
// web-bot-auth (it is not installed in the repository).
import { readFile } from "node:fs/promises";
import { verify, jwkToKeyID, helpers, HTTP_MESSAGE_SIGNATURES_DIRECTORY, MediaType } from "web-bot-auth";
import { verifierFromJWK } from "web-bot-auth/crypto";

async function main() {
  const recorded = JSON.parse(await readFile(process.argv[2], "utf8"));
  const request = new Request(recorded.url, { headers: recorded.headers });

  const agent = request.headers.get("signature-agent");
  if (!agent) throw new Error("no Signature-Agent header");
  // A Structured Field String: the origin in double quotes.
  const origin = agent.replace(/^"|"$/g, "");
  const res = await fetch(new URL(HTTP_MESSAGE_SIGNATURES_DIRECTORY, origin));
  if (!res.ok) throw new Error(`directory: HTTP ${res.status}`);
  const type = res.headers.get("content-type");
  if (type !== MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY) {
    throw new Error(`directory: content type ${type}`);
  }
  const directory = await res.json();

  let verifiedWith = null;
  await verify(request, async (data, signature, params) => {
    for (const jwk of directory.keys) {
      const kid = await jwkToKeyID(jwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
      if (kid === params.keyid) {
        await (await verifierFromJWK(jwk))(data, signature, params);
        verifiedWith = kid;
        return;
      }
    }
    throw new Error(`key not found in directory: ${params.keyid}`);
  });
  if (verifiedWith === null) throw new Error("the verifier was never called");
  return verifiedWith;
}

try {
  const keyid = await main();
  console.log(JSON.stringify({ ok: true, keyid }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: String(e && e.message ? e.message : e) }));
  process.exitCode = 1;
}
