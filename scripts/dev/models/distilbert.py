"""distilbert: transformers DistilBertForSequenceClassification, tiny random config (dim 32, 2 layers, 4 heads, vocab 100); returns logits."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                                            max_position_embeddings=64, num_labels=3)
        self.m = transformers.DistilBertForSequenceClassification(cfg)

    def forward(self, input_ids, attention_mask):
        return self.m(input_ids=input_ids, attention_mask=attention_mask).logits


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 100, (2, 8), generator=g)
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[0, 5:] = 0
    return (ids, mask)
