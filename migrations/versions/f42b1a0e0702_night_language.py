"""night language: the language a night was created in, for its sheets

Revision ID: f42b1a0e0702
Revises: f42a1c0e0701
Create Date: 2026-11-28 13:50:00

A PDF app that opens settlement.pdf sends no Accept-Language and no cookie,
so the sheet came out in English for a Swedish night. The night keeps the
language it was created in ("en", "sv", "de"); a night from before has
none (its sheets stay English for such a reader, as before).
"""
from alembic import op
import sqlalchemy as sa


revision = 'f42b1a0e0702'
down_revision = 'f42a1c0e0701'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sa.String(length=5), nullable=True))


def downgrade():
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.drop_column('language')
