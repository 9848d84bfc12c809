"""A FastMCP server: tools come from decorated functions, their docstrings and signatures."""

from typing import Annotated, Literal, Optional

from mcp.server.fastmcp import Context, FastMCP
from pydantic import Field

mcp = FastMCP("calendar")


@mcp.tool()
def find_slots(
    attendees: list[str],
    duration_minutes: int = 30,
    timezone: Optional[str] = None,
    ctx: Context = None,
) -> list[str]:
    """Find free meeting slots shared by all attendees."""
    return []


@mcp.tool(name="book-meeting", description="Book a meeting in a free slot.")
async def book(
    slot: str,
    title: Annotated[str, Field(description="Shown in every invitation")],
    visibility: Literal["public", "private"] = "private",
    notify: bool = True,
) -> dict:
    return {"slot": slot, "title": title}


def helper(x):
    return x * 2
