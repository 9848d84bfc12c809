import OpenAI from "openai";

const openai = new OpenAI();

export async function answer(question: string) {
  const completion = await openai.chat.completions.create({
    model: "gpt-4o",
    max_tokens: 300,
    messages: [
      { role: "system", content: `Now: ${new Date().toISOString()}. You are the support assistant for Northwind. Answer in two sentences, never promise a refund, and hand the conversation to a person when asked. Check the order number before you discuss an order, and never reveal card numbers, internal notes or another customer's details.` },
      { role: "user", content: question },
    ],
  });
  return completion.choices[0].message.content;
}
