// verify.mjs VERIFIER REQUEST.json: verifies a recorded request's Web Bot
// Auth signature the way a web site would, with one of two independent
// npm implementations:
//
//   - rfc9421: http-message-signatures, a general RFC 9421 library that
//     implements the key parameter of dictionary fields. This script adds
//     Web Bot Auth's rules around it: the tag, created and expires, a
//     keyid, @authority and Signature-Agent covered, and the key taken
//     from the directory that the covered Signature-Agent names.
//   - web-bot-auth: the web-bot-auth package's own verifier, the
//     architecture draft's reference. It builds the signature base of a
//     covered "signature-agent";key="…" from the whole field rather than
//     the member (RFC 9421 §2.1.2), so it verifies only the legacy
//     Signature-Agent form.
//
// Both fetch the key directory from the origin the request names, and take
// the key whose RFC 7638 thumbprint is the signature's keyid.
//
// REQUEST.json is {"url": "http://host:port/path", "headers": {name: value},
// "received": unix seconds}, or an array of them. The rfc9421 verifier
// judges a signature's times as at received, when given. Prints one JSON
// line per request, {"ok":true,"keyid":…} or {"ok":false,"error":…}, and
// exits 0 only when every signature verified.
//
// Run by webbotauth.go from a directory whose node_modules holds the
// packages (they are not installed in the repository).
import { readFile } from "node:fs/promises";
import { createHash, createPublicKey } from "node:crypto";
import { parseDictionary, parseItem, isInnerList } from "structured-headers";
import { httpbis, createVerifier } from "http-message-signatures";
import { verify, jwkToKeyID, helpers, HTTP_MESSAGE_SIGNATURES_DIRECTORY, MediaType } from "web-bot-auth";
import { verifierFromJWK } from "web-bot-auth/crypto";

const TAG = "web-bot-auth";

// directory fetches the JWKS at origin's well-known path.
async function directory(origin) {
  const res = await fetch(new URL(HTTP_MESSAGE_SIGNATURES_DIRECTORY, origin));
  if (!res.ok) throw new Error(`directory: HTTP ${res.status}`);
  const type = res.headers.get("content-type");
  if (type !== MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY) {
    throw new Error(`directory: content type ${type}`);
  }
  return (await res.json()).keys ?? [];
}

// thumbprint is RFC 7638's JWK SHA-256 thumbprint of an OKP key.
function thumbprint(jwk) {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return createHash("sha256").update(canonical).digest("base64url");
}

// webBotAuthInput returns the Signature-Input member tagged web-bot-auth.
function webBotAuthInput(headers) {
  const inputs = parseDictionary(headers["signature-input"] ?? "");
  for (const [label, member] of inputs) {
    if (isInnerList(member) && member[1].get("tag") === TAG) return [label, member];
  }
  throw new Error(`no Signature-Input member has tag ${TAG}`);
}

// coveredAgent returns the directory origin the covered Signature-Agent
// names: the member the key parameter picks, or the whole field.
function coveredAgent(headers, member) {
  const field = headers["signature-agent"];
  if (!field) throw new Error("no Signature-Agent header");
  const covered = member[0].find(([name]) => name === "signature-agent");
  if (!covered) throw new Error("Signature-Agent is not covered");
  const key = covered[1].get("key");
  const item = key === undefined ? parseItem(field) : parseDictionary(field).get(key);
  if (!item || typeof item[0] !== "string") throw new Error(`Signature-Agent member ${key} is not a String`);
  return item[0];
}

async function rfc9421(recorded) {
  const headers = recorded.headers;
  const [, member] = webBotAuthInput(headers);
  const params = member[1];
  const wall = Date.now() / 1000;
  const now = recorded.received ?? wall;
  if (!(params.get("created") <= now + 60)) throw new Error("created missing or in the future");
  if (!(params.get("expires") >= now)) throw new Error("signature has expired");
  const keys = await directory(coveredAgent(headers, member));
  let verifiedWith = null;
  const ok = await httpbis.verifyMessage({
    // Its own clock checks expires against the wall clock: allow what has
    // passed since the request was received.
    tolerance: Math.max(0, Math.ceil(wall - now)),
    requiredFields: ["@authority", "signature-agent"],
    requiredParams: ["created", "expires", "keyid", "tag"],
    keyLookup: async (p) => {
      const jwk = keys.find((k) => k.kty === "OKP" && k.crv === "Ed25519" && thumbprint(k) === p.keyid);
      if (!jwk) throw new Error(`key not found in directory: ${p.keyid}`);
      verifiedWith = p.keyid;
      return { id: p.keyid, algs: ["ed25519"], verify: createVerifier(createPublicKey({ key: jwk, format: "jwk" }), "ed25519") };
    },
  }, { method: "GET", url: recorded.url, headers });
  if (!ok) throw new Error("invalid signature");
  return verifiedWith;
}

async function reference(recorded) {
  const request = new Request(recorded.url, { headers: recorded.headers });
  const [, member] = webBotAuthInput(recorded.headers);
  const keys = await directory(coveredAgent(recorded.headers, member));
  let verifiedWith = null;
  await verify(request, async (data, signature, params) => {
    for (const jwk of keys) {
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

const verifiers = { "rfc9421": rfc9421, "web-bot-auth": reference };

const run = verifiers[process.argv[2]];
let requests = [];
try {
  if (!run) throw new Error(`unknown verifier ${process.argv[2]}`);
  const parsed = JSON.parse(await readFile(process.argv[3], "utf8"));
  requests = Array.isArray(parsed) ? parsed : [parsed];
} catch (e) {
  console.log(JSON.stringify({ ok: false, error: String(e && e.message ? e.message : e) }));
  process.exit(1);
}
for (const recorded of requests) {
  try {
    const keyid = await run(recorded);
    console.log(JSON.stringify({ ok: true, keyid }));
  } catch (e) {
    console.log(JSON.stringify({ ok: false, error: String(e && e.message ? e.message : e) }));
    process.exitCode = 1;
  }
}
