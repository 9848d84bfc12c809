import Anthropic from "@anthropic-ai/sdk";

const anthropic = new Anthropic();

export async function triage(ticket: string) {
  const message = await anthropic.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 300,
    system: `Session ${crypto.randomUUID()}. You triage support tickets for Northwind into billing, shipping or product questions, and answer with the category name only. A charge, a refund or an invoice is billing; a late, lost or damaged parcel is shipping; anything else is a product question.`,
    messages: [{ role: "user", content: ticket }],
  });
  return message.content;
}
