import json
import uuid
from datetime import datetime

import anthropic
import requests
from openai import OpenAI

client = OpenAI()
claude = anthropic.Anthropic()


def ask(system: str, question: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o", max_tokens=300,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}])
    return reply.choices[0].message.content


def answer(question: str) -> str:
    system = (f"Today is {datetime.now().isoformat()}. You are the support assistant for Northwind. "
              "Answer in two sentences, never promise a refund, and hand the conversation to a person "
              "when the customer asks for one. Check the order number before you discuss an order, and "
              "never reveal card numbers, internal notes or another customer's details. " + HOUSE_STYLE)
    return ask(system, question)


def triage(ticket: str) -> str:
    reply = claude.messages.create(
        model="claude-sonnet-4-5", max_tokens=300,
        system=f"Session {uuid.uuid4()}. You triage support tickets for Northwind into billing, shipping "
               "or product questions, and answer with the category name only. A charge, a refund or an "
               "invoice is billing; a late, lost or damaged parcel is shipping; anything else is a product "
               "question.",
        messages=[{"role": "user", "content": ticket}])
    return reply.content[0].text


def plan(question: str) -> str:
    settings = requests.get("https://config.example.com/assistant", timeout=5).json()
    system = (f"Settings: {json.dumps(settings)}\nYou plan the next support step for Northwind. Use at most "
              "three steps, never promise a refund, say which team owns each step, name the ticket fields each team needs, and hand anything about a payment card or a legal complaint to a human supervisor.")
    return ask(system, question)


def summarise(url: str) -> str:
    page = requests.get(url, timeout=10).text
    reply = client.chat.completions.create(
        model="gpt-4o", max_tokens=300,
        messages=[{"role": "user", "content": f"Summarise this page: {page} Keep it to three bullets."}])
    return reply.choices[0].message.content


HOUSE_STYLE = (
    "Keep a plain and friendly tone, use the customer's name once, never guess at facts the records do "
    "not show, say so plainly when you do not know, point to the help centre article on the topic when "
    "there is one, and close by asking whether anything else needs attention today. Write dates as they "
    "appear in the records, spell out abbreviations the first time you use them, and keep lists to five "
    "items; when a request falls outside these rules, say which rule stops you and offer the nearest "
    "thing you can do."
)
